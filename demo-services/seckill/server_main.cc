#include "ferry/framework/app.h"
#include "service/seckill_app.h"
#include "service/seckill_config.h"

// build/bin/seckill-server --config demo-services/seckill/config/seckill-server.yaml --dev
int main(int argc, char** argv) {
  ferry::App app("seckill-server", argc, argv);
  ferry::seckill::SeckillConfig config;
  app.ReadServiceConfig(
      [&](ferry::config::ConfigReader& service) { ReadSeckillConfig(service, &config); });
  if (!app.ok()) return app.Fail(app.status());
  std::unique_ptr<ferry::seckill::SeckillApp> seckill;
  if (ferry::Status s =
          ferry::seckill::SeckillApp::Create(config, app.config().registry.url, &seckill);
      !s.ok()) {
    return app.Fail(s);
  }
  for (ferry::Service* service : seckill->services()) app.AddService(service);
  app.OnStop([&seckill] { seckill->Stop(); });
  return app.Run();
}
