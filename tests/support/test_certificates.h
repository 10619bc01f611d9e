#pragma once

#include <filesystem>
#include <string>

namespace ferry::testsupport {

// A throw-away PKI made with the openssl CLI (Debian's openssl package) in a temporary
// directory, removed on destruction: a CA, a server certificate for localhost and 127.0.0.1
// (subjectAltName) with CN "localhost", a client certificate with CN "ferry-test-client", and a
// second, unrelated CA with a client certificate of its own ("ferry-stranger"). EC P-256 keys,
// unencrypted PEM, valid for two days. A gtest failure, with openssl's output, when it cannot
// be made.
class TestCertificates {
 public:
  TestCertificates();
  ~TestCertificates();
  TestCertificates(const TestCertificates&) = delete;
  TestCertificates& operator=(const TestCertificates&) = delete;

  bool ok() const { return ok_; }
  const std::filesystem::path& dir() const { return dir_; }

  std::string ca() const { return File("ca.pem"); }
  std::string server_cert() const { return File("server.pem"); }
  std::string server_key() const { return File("server.key"); }
  std::string client_cert() const { return File("client.pem"); }
  std::string client_key() const { return File("client.key"); }
  std::string other_ca() const { return File("other-ca.pem"); }
  std::string other_client_cert() const { return File("other-client.pem"); }
  std::string other_client_key() const { return File("other-client.key"); }

  // A file of the directory, for what a test writes beside the certificates.
  std::string File(const std::string& name) const { return (dir_ / name).string(); }

 private:
  // Runs openssl with `args` in dir(); false, after a gtest failure, when it fails.
  bool OpenSsl(const std::string& args);
  bool MakeCa(const std::string& name, const std::string& subject);
  bool MakeLeaf(const std::string& name, const std::string& ca, const std::string& subject,
                const std::string& extensions, int serial);

  std::filesystem::path dir_;
  bool ok_ = false;
};

}  // namespace ferry::testsupport
