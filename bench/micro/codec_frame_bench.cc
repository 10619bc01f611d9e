// Cost of the codec's part of one call: framing a protobuf body behind its meta, and getting it
// back out of a byte stream.
#include <benchmark/benchmark.h>
#include <google/protobuf/wrappers.pb.h>

#include <string>

#include "ferry/codec/frame_decoder.h"
#include "ferry/codec/message_codec.h"
#include "ferry/rpc_meta.pb.h"

namespace ferry::bench {
namespace {

wire::RpcMeta RequestMeta() {
  wire::RpcMeta meta;
  meta.set_service("ferry.demo.EchoService");
  meta.set_method("Echo");
  meta.set_timeout_us(1'000'000);
  return meta;
}

std::string EncodedFrame(const google::protobuf::BytesValue& body) {
  const wire::RpcMeta meta = RequestMeta();
  std::string frame;
  codec::FrameHeader header;
  header.request_id = 42;
  if (!codec::AppendFrame(header, &meta, &body, codec::BodyOptions{}, &frame).ok()) {
    frame.clear();
  }
  return frame;
}

void BM_AppendFrame(benchmark::State& state) {
  google::protobuf::BytesValue body;
  body.set_value(std::string(static_cast<size_t>(state.range(0)), 'x'));
  const wire::RpcMeta meta = RequestMeta();
  const codec::BodyOptions options;
  codec::FrameHeader header;
  std::string out;
  for (auto _ : state) {
    out.clear();  // keeps capacity, as a connection's write buffer does
    header.request_id++;
    const Status status = codec::AppendFrame(header, &meta, &body, options, &out);
    if (!status.ok()) state.SkipWithError(status.ToString().c_str());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * out.size()));
}
BENCHMARK(BM_AppendFrame)->Arg(16)->Arg(4096);

void BM_DecodeFrame(benchmark::State& state) {
  google::protobuf::BytesValue body;
  body.set_value(std::string(static_cast<size_t>(state.range(0)), 'x'));
  const std::string frame = EncodedFrame(body);
  if (frame.empty()) return state.SkipWithError("cannot encode the frame");
  codec::FrameDecoder decoder;
  codec::Frame decoded;
  wire::RpcMeta meta;
  google::protobuf::BytesValue parsed;
  for (auto _ : state) {
    decoder.Feed(frame);
    if (decoder.Next(&decoded) != codec::FrameDecoder::Result::kFrame) {
      return state.SkipWithError(decoder.error().c_str());
    }
    if (!codec::ParseMeta(decoded.meta, &meta).ok() ||
        !codec::ParseBody(decoded.header, decoded.body, frame.size(), &parsed).ok()) {
      return state.SkipWithError("cannot parse the frame");
    }
    benchmark::DoNotOptimize(parsed.value().data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * frame.size()));
}
BENCHMARK(BM_DecodeFrame)->Arg(16)->Arg(4096);

}  // namespace
}  // namespace ferry::bench
