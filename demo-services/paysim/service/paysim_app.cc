#include "service/paysim_app.h"

#include <spdlog/spdlog.h>

#include <chrono>

#include "ferry/framework/logging.h"
#include "storage/payment_database.h"

namespace ferry::paysim {

namespace {

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Notifier::ChannelFor PaysimApp::ChannelsToNotifyAddresses(int64_t timeout_ms) {
  return [timeout_ms](const Merchant& merchant) -> std::shared_ptr<Channel> {
    ClientOptions options;
    options.target = merchant.notify_address;
    options.default_timeout = std::chrono::milliseconds(timeout_ms);
    options.connect_timeout = std::chrono::milliseconds(std::min<int64_t>(timeout_ms, 1000));
    std::shared_ptr<Channel> channel;
    if (Status s = NewChannel(options, &channel); !s.ok()) {
      Logger().warn("paysim: merchant {}: notify_address '{}': {}", merchant.id,
                    merchant.notify_address, s.ToString());
      return nullptr;
    }
    return channel;
  };
}

Status PaysimApp::Create(const PaysimConfig& config, Notifier::ChannelFor channel_for,
                         std::unique_ptr<PaysimApp>* out) {
  std::unique_ptr<PaysimApp> app(new PaysimApp());
  app->merchants_ = config.merchants;
  if (Status s = OpenPaymentStore(config.storage_path, static_cast<int>(config.storage_connections),
                                  &app->store_);
      !s.ok()) {
    return s;
  }
  if (!channel_for) channel_for = ChannelsToNotifyAddresses(config.delivery.timeout_ms);
  app->notifier_ = std::make_unique<Notifier>(app->store_.get(), &app->merchants_, &app->faults_,
                                              config.delivery, WallMs, std::move(channel_for));
  Notifier* notifier = app->notifier_.get();
  app->notices_ = std::make_unique<Notices>(app->store_.get(), &app->merchants_, WallMs,
                                            [notifier] { notifier->Wake(); });
  app->desk_ = std::make_unique<PaymentDesk>(app->store_.get(), app->notices_.get(), WallMs);
  app->service_ =
      std::make_unique<PaysimServiceImpl>(PaysimParts{.merchants = &app->merchants_,
                                                      .store = app->store_.get(),
                                                      .desk = app->desk_.get(),
                                                      .notices = app->notices_.get(),
                                                      .faults = &app->faults_,
                                                      .now_ms = WallMs,
                                                      .max_skew_ms = config.max_skew_ms});
  app->services_.push_back(app->service_.get());
  app->notifier_->Start();
  *out = std::move(app);
  return Status::Ok();
}

void PaysimApp::Stop() {
  if (notifier_) notifier_->Stop();
}

}  // namespace ferry::paysim
