#include "ferry/framework/app.h"
#include "service/like_app.h"
#include "service/like_config.h"

// build/bin/like-server --config demo-services/like/config/like-server.yaml --dev
int main(int argc, char** argv) {
  ferry::App app("like-server", argc, argv);
  ferry::like::LikeConfig config;
  app.ReadServiceConfig(
      [&](ferry::config::ConfigReader& service) { ReadLikeConfig(service, &config); });
  if (!app.ok()) return app.Fail(app.status());
  std::unique_ptr<ferry::like::LikeApp> like;
  if (ferry::Status s = ferry::like::LikeApp::Create(config, &like); !s.ok()) {
    return app.Fail(s);
  }
  for (ferry::Service* service : like->services()) app.AddService(service);
  app.OnStop([&like] { like->Stop(); });
  return app.Run();
}
