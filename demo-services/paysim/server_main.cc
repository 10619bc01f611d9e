#include "ferry/framework/app.h"
#include "service/paysim_app.h"
#include "service/paysim_config.h"

// build/bin/paysim-server --config demo-services/paysim/config/paysim.yaml
int main(int argc, char** argv) {
  ferry::App app("paysim-server", argc, argv);
  ferry::paysim::PaysimConfig config;
  app.ReadServiceConfig(
      [&](ferry::config::ConfigReader& service) { ReadPaysimConfig(service, &config); });
  if (!app.ok()) return app.Fail(app.status());
  // A merchant's notify_client names a `clients:` entry, so its notifications can go through a
  // registry and a balancer like any other call of this process.
  auto to_address = ferry::paysim::PaysimApp::ChannelsToNotifyAddresses(config.delivery.timeout_ms);
  auto channel_for = [&app, to_address](const ferry::paysim::Merchant& merchant) {
    return merchant.notify_client.empty() ? to_address(merchant)
                                          : app.ClientChannel(merchant.notify_client);
  };
  std::unique_ptr<ferry::paysim::PaysimApp> paysim;
  if (ferry::Status s = ferry::paysim::PaysimApp::Create(config, channel_for, &paysim); !s.ok()) {
    return app.Fail(s);
  }
  for (ferry::Service* service : paysim->services()) app.AddService(service);
  app.OnStop([&paysim] { paysim->Stop(); });
  return app.Run();
}
