#include "common/provider_main.h"
#include "service/seckill_app.h"

// build/bin/seckill-server --config demo-services/seckill/config/seckill-server.yaml
int main(int argc, char** argv) {
  return ferry::demo::RunProvider(
      "seckill-server", argc, argv,
      [](const ferry::demo::ProviderSetup& setup, std::unique_ptr<ferry::demo::ProviderApp>* app) {
        ferry::seckill::SeckillConfig config;
        if (ferry::Status s = ferry::seckill::ParseSeckillConfig(setup.config_path, &config);
            !s.ok()) {
          return s;
        }
        std::unique_ptr<ferry::seckill::SeckillApp> seckill;
        ferry::Status s =
            ferry::seckill::SeckillApp::Create(config, setup.config.registry.url, &seckill);
        if (s.ok()) *app = std::move(seckill);
        return s;
      });
}
