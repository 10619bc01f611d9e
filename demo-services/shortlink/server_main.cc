#include "ferry/framework/app.h"
#include "service/shortlink_app.h"
#include "service/shortlink_config.h"

// build/bin/shortlink-server --config demo-services/shortlink/config/shortlink-server.yaml
int main(int argc, char** argv) {
  ferry::App app("shortlink-server", argc, argv);
  ferry::shortlink::ShortLinkConfig config;
  app.ReadServiceConfig(
      [&](ferry::config::ConfigReader& service) { ReadShortLinkConfig(service, &config); });
  if (!app.ok()) return app.Fail(app.status());
  std::unique_ptr<ferry::shortlink::ShortLinkApp> shortlink;
  if (ferry::Status s = ferry::shortlink::ShortLinkApp::Create(config, &shortlink); !s.ok()) {
    return app.Fail(s);
  }
  for (ferry::Service* service : shortlink->services()) app.AddService(service);
  app.AddServerFilter("shortlink_api_key", shortlink->api_key_filter());
  app.OnStop([&shortlink] { shortlink->Stop(); });
  return app.Run();
}
