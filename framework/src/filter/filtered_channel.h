#pragma once

#include <memory>
#include <vector>

#include "ferry/framework/channel.h"
#include "ferry/framework/filter.h"
#include "filter/blind_chain.h"

namespace ferry::filter {

// Runs the client filters around every call of the channel it wraps: OnCall in order on a copy
// of the call's options that they may change, then the inner channel, then OnDone in reverse
// order. A filter that rejects a call fails it at once; nothing is sent and later filters do
// not see it. Each filter whose OnCall ran sees OnDone, whatever the outcome.
class FilteredChannel final : public Channel {
 public:
  using Filters = std::vector<std::shared_ptr<ClientFilter>>;

  FilteredChannel(Filters filters, std::shared_ptr<Channel> inner);

  void CallMethod(const MethodSpec& method, const google::protobuf::Message& request,
                  google::protobuf::Message* response, const CallOptions& options,
                  CallDone done) override;

 private:
  const bool observes_done_;  // some filter's OnDone does something
  // The filters when one observes completions; shared with calls in flight, which may complete
  // after the channel is gone.
  const std::shared_ptr<const Filters> filters_;
  const BlindChain blind_;  // the filters when none does
  const std::shared_ptr<Channel> inner_;
};

// `inner` itself when there are no filters, so that unfiltered calls pay nothing.
std::shared_ptr<Channel> WithFilters(FilteredChannel::Filters filters,
                                     std::shared_ptr<Channel> inner);

}  // namespace ferry::filter
