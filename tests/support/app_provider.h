#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <utility>

#include "ferry/framework/client_options.h"
#include "loopback_provider.h"

namespace ferry::testsupport {

// A service's application in the test process, served by a LoopbackProvider, with a proxy to
// it. `App` has services() (what the server serves) and Stop(); `Proxy` is a generated proxy.
// Stop() (and the destructor) drops the proxy, stops the server, then stops the application
// when it owns it, so no call reaches an application that is stopping.
template <class App, class Proxy>
class AppProvider {
 public:
  AppProvider() = default;
  ~AppProvider() { Stop(); }
  AppProvider(const AppProvider&) = delete;
  AppProvider& operator=(const AppProvider&) = delete;

  // Serves `app`, which this owns. `options.services` is filled in with the app's; the proxy
  // connects with `client`. A fatal gtest failure when it cannot start.
  void Serve(std::unique_ptr<App> app, LoopbackProviderOptions options, ClientOptions client) {
    owned_ = std::move(app);
    Serve(owned_.get(), std::move(options), std::move(client));
  }
  // Serves `app`, owned elsewhere: several servers may front one application.
  void Serve(App* app, LoopbackProviderOptions options, ClientOptions client) {
    app_ = app;
    options.services = app_->services();
    ASSERT_NO_FATAL_FAILURE(server_.Start(options));
    auto channel = LoopbackChannel(server_.port(), std::move(client));
    ASSERT_NE(channel, nullptr);
    proxy_ = std::make_unique<Proxy>(channel);
  }
  void Stop() {
    proxy_.reset();
    server_.Stop();
    if (owned_) owned_->Stop();
    owned_.reset();
    app_ = nullptr;
  }

  Proxy& proxy() { return *proxy_; }
  App& app() { return *app_; }
  uint16_t port() const { return server_.port(); }

 private:
  std::unique_ptr<App> owned_;
  App* app_ = nullptr;
  LoopbackProvider server_;
  std::unique_ptr<Proxy> proxy_;
};

}  // namespace ferry::testsupport
