// Start-up refuses TLS files that are missing, unreadable or broken, naming the file and the
// config key (with its line), the way every config mistake is reported: exit code 2.
#include <fstream>
#include <vector>

#include "ferry/framework/app.h"
#include "ferry/framework/config.h"
#include "tls_fixture.h"

namespace ferry::tls_test {
namespace {

class TlsStartupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(certs_.ok());
    std::ofstream(garbage_) << "this is not PEM\n";
  }

  // The status an App reading `yaml` from a file ends up with; it must also exit 2.
  Status AppStatus(const std::string& yaml) {
    const std::string path = certs_.File("app.yaml");
    std::ofstream(path) << yaml;
    std::vector<std::string> args = {"app", "--config", path};
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    App app("app", static_cast<int>(argv.size()), argv.data());
    EXPECT_EQ(app.Fail(app.status()), 2) << app.status();
    return app.status();
  }

  // A server section with these files, cert_file on line 4, key_file on 5 and ca_file on 6.
  std::string ServerYaml(const std::string& cert, const std::string& key,
                         const std::string& ca = "") {
    return "server:\n  listen: 127.0.0.1:0\n  tls:\n    cert_file: " + cert +
           "\n    key_file: " + key + "\n" + (ca.empty() ? "" : "    ca_file: " + ca + "\n");
  }

  void ExpectError(const Status& status, const std::string& where, const std::string& what) {
    EXPECT_EQ(status.code(), StatusCode::INVALID_ARGUMENT) << status;
    EXPECT_NE(status.message().find("app.yaml:" + where), std::string::npos) << status;
    EXPECT_NE(status.message().find(what), std::string::npos) << status;
  }

  testsupport::TestCertificates certs_;
  const std::string garbage_ = certs_.File("garbage.pem");
};

TEST_F(TlsStartupTest, AMissingCertificateFile) {
  const std::string missing = certs_.File("missing.pem");
  ExpectError(AppStatus(ServerYaml(missing, certs_.server_key())), "4: server.tls.cert_file: ",
              "cannot open '" + missing + "': No such file or directory");
}

TEST_F(TlsStartupTest, AMissingKeyFile) {
  const std::string missing = certs_.File("missing.key");
  ExpectError(AppStatus(ServerYaml(certs_.server_cert(), missing)),
              "5: server.tls.key_file: ", "cannot open '" + missing + "'");
}

TEST_F(TlsStartupTest, AnUnreadableCertificateFile) {
  // A directory: unreadable as a file even by root, whom file modes do not stop.
  ExpectError(AppStatus(ServerYaml(certs_.dir().string(), certs_.server_key())),
              "4: server.tls.cert_file: ", "'" + certs_.dir().string() + "' is a directory");
}

TEST_F(TlsStartupTest, ACertificateFileThatIsNotPem) {
  ExpectError(AppStatus(ServerYaml(garbage_, certs_.server_key())),
              "4: server.tls.cert_file: ", "'" + garbage_ + "' holds no PEM certificate");
}

TEST_F(TlsStartupTest, AKeyThatDoesNotMatchTheCertificate) {
  ExpectError(AppStatus(ServerYaml(certs_.server_cert(), certs_.client_key())),
              "5: server.tls.key_file: ",
              "the private key in '" + certs_.client_key() +
                  "' does not match the certificate in '" + certs_.server_cert() + "'");
}

TEST_F(TlsStartupTest, AKeyFileThatIsNotPem) {
  ExpectError(AppStatus(ServerYaml(certs_.server_cert(), garbage_)), "5: server.tls.key_file: ",
              "'" + garbage_ + "' holds no unencrypted PEM private key");
}

TEST_F(TlsStartupTest, ABadCaFile) {
  ExpectError(AppStatus(ServerYaml(certs_.server_cert(), certs_.server_key(), garbage_)),
              "6: server.tls.ca_file: ", "'" + garbage_ + "' holds no PEM CA certificate");
}

TEST_F(TlsStartupTest, AClientCertificateNeedsACa) {
  ExpectError(AppStatus(ServerYaml(certs_.server_cert(), certs_.server_key()) +
                        "    client_cert: require\n"),
              "6: server.tls.client_cert: ", "needs ca_file");
}

TEST_F(TlsStartupTest, AClientsMissingCaFile) {
  const std::string missing = certs_.File("missing-ca.pem");
  ExpectError(AppStatus("clients:\n  echo:\n    target: 127.0.0.1:1\n    tls:\n      ca_file: " +
                        missing + "\n"),
              "5: clients.echo.tls.ca_file: ", "cannot open '" + missing + "'");
}

TEST_F(TlsStartupTest, AClientsKeyThatDoesNotMatchItsCertificate) {
  ExpectError(AppStatus("clients:\n  echo:\n    target: 127.0.0.1:1\n    tls:\n      ca_file: " +
                        certs_.ca() + "\n      cert_file: " + certs_.client_cert() +
                        "\n      key_file: " + certs_.server_key() + "\n"),
              "7: clients.echo.tls.key_file: ", "does not match the certificate");
}

TEST_F(TlsStartupTest, ReadsTheTlsKeysWithTheirDefaults) {
  Config config;
  Status parsed =
      ParseConfig("server:\n  tls:\n    cert_file: " + certs_.server_cert() +
                      "\n    key_file: " + certs_.server_key() + "\n    ca_file: " + certs_.ca() +
                      "\nclients:\n  echo:\n    target: 127.0.0.1:1\n    tls:\n",
                  "app.yaml", &config);
  ASSERT_TRUE(parsed.ok()) << parsed;
  EXPECT_TRUE(config.server.tls.enabled());
  EXPECT_EQ(config.server.tls.client_cert, ServerTlsOptions::ClientCert::kRequire)
      << "a CA asks for client certificates";
  EXPECT_FALSE(config.server.tls.accept_plaintext);
  EXPECT_EQ(config.server.limits.handshake_timeout, std::chrono::milliseconds(10000));
  const ClientTlsOptions& client = config.clients.at("echo").cluster.client.tls;
  EXPECT_TRUE(client.enabled) << "an empty tls: section turns TLS on";
  EXPECT_TRUE(client.verify);
  EXPECT_TRUE(client.ca_file.empty()) << "the system's trust store";

  ASSERT_TRUE(ParseConfig("clients:\n  echo: {target: 127.0.0.1:1}\n", "app.yaml", &config).ok());
  EXPECT_FALSE(config.clients.at("echo").cluster.client.tls.enabled);
  EXPECT_FALSE(config.server.tls.enabled());
}

TEST_F(TlsStartupTest, RefusesInconsistentTlsKeys) {
  Config config;
  Status status = ParseConfig("server:\n  tls:\n    accept_plaintext: true\n", "app.yaml", &config);
  ExpectError(status, "3: server.tls.cert_file: ", "required");
  status = ParseConfig("clients:\n  echo:\n    target: 127.0.0.1:1\n    tls:\n      ca_file: " +
                           certs_.ca() + "\n      verify: false\n",
                       "app.yaml", &config);
  ExpectError(status, "6: clients.echo.tls.verify: ", "unsafe");
  status = ParseConfig("clients:\n  echo:\n    target: 127.0.0.1:1\n    tls:\n      cafile: x\n",
                       "app.yaml", &config);
  ExpectError(status, "5: clients.echo.tls.cafile: ", "unknown key");
  status = ParseConfig("clients:\n  echo:\n    target: 127.0.0.1:1\n    tls:\n      cert_file: " +
                           certs_.client_cert() + "\n",
                       "app.yaml", &config);
  ExpectError(status, "5: clients.echo.tls.key_file: ", "go together");
}

// Without a config file, Server::Start() makes the same checks.
TEST_F(TlsStartupTest, AServerStartedInCodeNamesTheKeyAndTheFile) {
  ServerOptions options;
  options.tls.cert_file = certs_.server_cert();
  options.tls.key_file = garbage_;
  Server server(options);
  const Status started = server.Start();
  EXPECT_EQ(started.code(), StatusCode::INVALID_ARGUMENT) << started;
  EXPECT_NE(started.message().find("tls.key_file: '" + garbage_ + "' holds no unencrypted PEM"),
            std::string::npos)
      << started;
}

}  // namespace
}  // namespace ferry::tls_test
