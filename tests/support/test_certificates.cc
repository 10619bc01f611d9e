#include "test_certificates.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "process.h"

namespace ferry::testsupport {

TestCertificates::TestCertificates() : dir_(internal::MakeTempDir("ferry-tls-")) {
  if (dir_.empty()) {
    ADD_FAILURE() << "cannot make a temporary directory for the test certificates";
    return;
  }
  ok_ = MakeCa("ca", "/CN=Ferry Test CA") &&
        MakeLeaf("server", "ca", "/CN=localhost",
                 "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n", 1) &&
        MakeLeaf("client", "ca", "/CN=ferry-test-client", "extendedKeyUsage=clientAuth\n", 2) &&
        MakeCa("other-ca", "/CN=Unrelated Test CA") &&
        MakeLeaf("other-client", "other-ca", "/CN=ferry-stranger", "extendedKeyUsage=clientAuth\n",
                 3);
}

TestCertificates::~TestCertificates() {
  if (dir_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

bool TestCertificates::OpenSsl(const std::string& args) {
  const std::string log = File("openssl.log");
  const std::string command =
      "cd '" + dir_.string() + "' && " FERRY_OPENSSL " " + args + " >'" + log + "' 2>&1";
  if (std::system(command.c_str()) == 0) return true;
  ADD_FAILURE() << "openssl failed: " << command << "\n" << internal::FileTail(log);
  return false;
}

bool TestCertificates::MakeCa(const std::string& name, const std::string& subject) {
  return OpenSsl("req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -keyout " +
                 name + ".key -out " + name + ".pem -subj '" + subject +
                 "' -addext basicConstraints=critical,CA:TRUE"
                 " -addext keyUsage=critical,keyCertSign,cRLSign");
}

bool TestCertificates::MakeLeaf(const std::string& name, const std::string& ca,
                                const std::string& subject, const std::string& extensions,
                                int serial) {
  std::ofstream(File(name + ".ext")) << extensions;
  return OpenSsl("req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout " + name +
                 ".key -out " + name + ".csr -subj '" + subject + "'") &&
         OpenSsl("x509 -req -in " + name + ".csr -CA " + ca + ".pem -CAkey " + ca +
                 ".key -set_serial " + std::to_string(serial) + " -days 2 -out " + name +
                 ".pem -extfile " + name + ".ext");
}

}  // namespace ferry::testsupport
