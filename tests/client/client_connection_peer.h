#pragma once

#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "client/client_connection.h"

namespace ferry::client {

// Reaches into a ClientConnection for tests that play one interleaving of its threads exactly:
// hooks that run at named points of a link ending or of a call finding a backoff over (for every
// connection of the process while installed), and a look at its state.
class ClientConnectionPeer {
 public:
  using Hook = std::function<void(ClientConnection&)>;
  struct Hooks {
    // IO thread, a link ending: the write queue was cleared for the next link, which callers do
    // not see yet (they still queue for the ended one, and are refused as stale).
    Hook queue_cleared;
    // IO thread, a link ending: the next link is published, in backoff; the calls of the ended
    // link are not failed yet.
    Hook link_ended;
    // Calling thread, admitting a call: the connection was read in backoff and the backoff found
    // over, just before the compare-and-swap that starts the next connect.
    Hook backoff_over;
  };

  // Installs `hooks` for its lifetime; on the way out, waits for any hook still running.
  class ScopedHooks {
   public:
    explicit ScopedHooks(Hooks hooks) {
      auto* installed = new ClientConnection::Hooks{.queue_cleared = std::move(hooks.queue_cleared),
                                                    .link_ended = std::move(hooks.link_ended),
                                                    .backoff_over = std::move(hooks.backoff_over)};
      // Deleted by whoever lets go of it last: this, or a hook that was still running.
      std::shared_ptr<const ClientConnection::Hooks> owned(
          installed, [released = released_](const ClientConnection::Hooks* hooks) {
            delete hooks;
            released->set_value();
          });
      MutexLock lock(ClientConnection::hooks_mu_);
      ClientConnection::hooks_ = std::move(owned);
      ClientConnection::hooked_.store(true);
    }
    ~ScopedHooks() {
      {
        MutexLock lock(ClientConnection::hooks_mu_);
        ClientConnection::hooked_.store(false);
        ClientConnection::hooks_.reset();
      }
      released_->get_future().wait();
    }
    ScopedHooks(const ScopedHooks&) = delete;
    ScopedHooks& operator=(const ScopedHooks&) = delete;

   private:
    std::shared_ptr<std::promise<void>> released_ = std::make_shared<std::promise<void>>();
  };

  // "host:port", as the connection was made for.
  static const std::string& Peer(const ClientConnection& connection) { return connection.peer_; }
  // When the current backoff is over (the next connect may start).
  static Clock::time_point RetryAt(const ClientConnection& connection) {
    return connection.retry_at_.load(std::memory_order_acquire);
  }
  static bool InBackoff(const ClientConnection& connection) {
    return ClientConnection::StateOf(connection.state_.load(std::memory_order_acquire)) ==
           ClientConnection::State::kBackoff;
  }
  static size_t PendingCalls(const ClientConnection& connection) {
    return connection.pending_.size();
  }
};

}  // namespace ferry::client
