// HTTP over TLS on the port the binary protocol uses, as curl (Debian's) sees it.
#include "command_output.h"
#include "tls_fixture.h"

namespace ferry::tls_test {
namespace {

class TlsHttpTest : public TlsFixture {
 protected:
  std::string Curl(const std::string& args) {
    return testsupport::CommandOutput(CURL_BINARY " -s -S -i --max-time 10 " + args);
  }
  std::string Url(const std::string& path, const std::string& host = "127.0.0.1") {
    return "https://" + host + ":" + std::to_string(server_->port()) + path;
  }
};

TEST_F(TlsHttpTest, TheGatewayAnswersOverTlsBesideTheBinaryProtocol) {
  StartServer();
  const std::string out =
      Curl("--cacert " + certs_.ca() + " -X POST " + Url("/ferry.demo.EchoService/Echo") +
           " -H 'Content-Type: application/json' -d '{\"payload\":\"aGVsbG8=\"}'");
  EXPECT_NE(out.find("HTTP/1.1 200 OK"), std::string::npos) << out;
  EXPECT_NE(out.find("{\"payload\":\"fGhlbGxv\"}"), std::string::npos) << "'|hello': " << out;
  const Result<demo::EchoResponse> binary = Proxy(ClientTls()).Echo(EchoOf("b"));
  EXPECT_TRUE(binary.ok()) << binary.status();
}

TEST_F(TlsHttpTest, CurlVerifiesTheServerByName) {
  StartServer();
  EXPECT_NE(Curl("--cacert " + certs_.ca() + " " + Url("/whoami", "localhost")).find("200 OK"),
            std::string::npos);
  const std::string untrusted = Curl(Url("/whoami"));
  EXPECT_EQ(untrusted.find("HTTP/1.1"), std::string::npos) << untrusted;
  EXPECT_NE(untrusted.find("certificate"), std::string::npos) << untrusted;
}

TEST_F(TlsHttpTest, RoutesSeeTheClientCertificatesCommonName) {
  StartServer(MutualTls());
  const std::string out = Curl("--cacert " + certs_.ca() + " --cert " + certs_.client_cert() +
                               " --key " + certs_.client_key() + " " + Url("/whoami"));
  EXPECT_NE(out.find("HTTP/1.1 200 OK"), std::string::npos) << out;
  EXPECT_NE(out.find("you are 'ferry-test-client'"), std::string::npos) << out;
  const std::string anonymous = Curl("--cacert " + certs_.ca() + " " + Url("/whoami"));
  EXPECT_EQ(anonymous.find("HTTP/1.1 200"), std::string::npos) << anonymous;
}

TEST_F(TlsHttpTest, PlaintextHttpIsRefusedUnlessAccepted) {
  StartServer();
  const std::string plain = Curl("http://127.0.0.1:" + std::to_string(server_->port()) + "/whoami");
  EXPECT_EQ(plain.find("HTTP/1.1"), std::string::npos) << plain;
  server_->Stop();
  StartServer({.accept_plaintext = true});
  const std::string accepted =
      Curl("http://127.0.0.1:" + std::to_string(server_->port()) + "/whoami");
  EXPECT_NE(accepted.find("HTTP/1.1 200 OK"), std::string::npos) << accepted;
}

}  // namespace
}  // namespace ferry::tls_test
