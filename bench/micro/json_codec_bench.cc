// CPU per request body of the JSON codec (ferry/codec/json_codec.h), the HTTP gateway's and the
// json serializer's, for hostile bodies against a benign one of the same size measured in the
// same run: nesting deeper than the limit (80 KB and 4 MiB of brackets) and a field given twice
// after a large map. A hostile body must cost no more than a benign one; docs/benchmarks.md
// quotes the ratios.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "ferry/codec/compressor.h"
#include "ferry/codec/frame_header.h"
#include "ferry/codec/json_codec.h"
#include "ferry/codec/message_codec.h"
#include "ferry/codec/serializer.h"
#include "json_bench.pb.h"

namespace ferry::bench {
namespace {

enum class Shape {
  kBenignList,        // {"contentIds":[1,2,...]}
  kDeepList,          // {"contentIds":[[[...1...]]]}
  kBenignMap,         // {"byName":{"k0":0,...}}
  kRepeatedMapField,  // {"byName":{half the size of keys},"byName":{},"byName":{},...}
  kRepeatedMessage,   // {"child":{},"child":{},...}
};

// A body of `shape`, about `size` bytes.
std::string Body(Shape shape, size_t size) {
  std::string json;
  json.reserve(size + 32);
  switch (shape) {
    case Shape::kBenignList:
      json = R"({"contentIds":[)";
      for (int i = 1; json.size() < size; ++i) json += std::to_string(i % 1000000) + ",";
      json.back() = ']';
      return json + "}";
    case Shape::kDeepList: {
      const size_t depth = (size - 18) / 2;
      return R"({"contentIds":)" + std::string(depth, '[') + "1" + std::string(depth, ']') + "}";
    }
    case Shape::kBenignMap:
    case Shape::kRepeatedMapField: {
      const size_t keys = shape == Shape::kBenignMap ? size : size / 2;
      json = R"({"byName":{)";
      for (int i = 0; json.size() < keys; ++i) json += "\"k" + std::to_string(i) + "\":0,";
      json.back() = '}';
      while (shape == Shape::kRepeatedMapField && json.size() < size) json += R"(,"byName":{})";
      return json + "}";
    }
    case Shape::kRepeatedMessage:
      json = R"({"child":{})";
      while (json.size() < size) json += R"(,"child":{})";
      return json + "}";
  }
  return json;
}

void Parse(benchmark::State& state, google::protobuf::Message* message, Shape shape, size_t size,
           bool accepted) {
  const std::string json = Body(shape, size);
  for (auto _ : state) {
    const Status status = codec::ParseJson(json, message);
    if (status.ok() != accepted) return state.SkipWithError(status.ToString().c_str());
    benchmark::DoNotOptimize(message);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * json.size()));
}

void BM_ParseJson(benchmark::State& state, Shape shape, size_t size, bool accepted) {
  json_bench::Counts message;
  Parse(state, &message, shape, size, accepted);
}

// A type the codec leaves to protobuf's converter, which reads only text within the limits.
void BM_ParseJsonByProtobuf(benchmark::State& state, Shape shape, size_t size, bool accepted) {
  json_bench::Stamped message;
  Parse(state, &message, shape, size, accepted);
}

constexpr size_t k80K = 80 * 1024;
constexpr size_t k4M = (4u << 20) - 1024;  // under the gateway's default max_body_bytes

BENCHMARK_CAPTURE(BM_ParseJson, benign_list_80k, Shape::kBenignList, k80K, true);
BENCHMARK_CAPTURE(BM_ParseJson, deep_list_80k, Shape::kDeepList, k80K, false);
BENCHMARK_CAPTURE(BM_ParseJson, benign_list_4m, Shape::kBenignList, k4M, true);
BENCHMARK_CAPTURE(BM_ParseJson, deep_list_4m, Shape::kDeepList, k4M, false);
BENCHMARK_CAPTURE(BM_ParseJson, benign_map_80k, Shape::kBenignMap, k80K, true);
BENCHMARK_CAPTURE(BM_ParseJson, repeated_map_field_80k, Shape::kRepeatedMapField, k80K, false);
BENCHMARK_CAPTURE(BM_ParseJson, benign_map_4m, Shape::kBenignMap, k4M, true);
BENCHMARK_CAPTURE(BM_ParseJson, repeated_map_field_4m, Shape::kRepeatedMapField, k4M, false);
BENCHMARK_CAPTURE(BM_ParseJson, repeated_message_4m, Shape::kRepeatedMessage, k4M, false);
BENCHMARK_CAPTURE(BM_ParseJsonByProtobuf, benign_list_4m, Shape::kBenignList, k4M, true);
BENCHMARK_CAPTURE(BM_ParseJsonByProtobuf, deep_list_4m, Shape::kDeepList, k4M, false);

// The binary protocol's path: a zstd-compressed json body inflated to 16 MiB (the default
// max_frame_bytes), then parsed.
void BM_ParseZstdJsonBody(benchmark::State& state, Shape shape, bool accepted) {
  constexpr size_t k16M = (16u << 20) - 1024;
  const std::string json = Body(shape, k16M);
  codec::FrameHeader header;
  header.serializer = codec::serializer_id::kJson;
  header.compression = codec::compression_id::kZstd;
  std::string body;
  const codec::Compressor* zstd = codec::FindCompressor(codec::compression_id::kZstd);
  if (zstd == nullptr || !zstd->Compress(json, 1, &body)) {
    return state.SkipWithError("cannot compress");
  }
  json_bench::Counts message;
  for (auto _ : state) {
    const Status status = codec::ParseBody(header, body, 16u << 20, &message);
    if (status.ok() != accepted) return state.SkipWithError(status.ToString().c_str());
    benchmark::DoNotOptimize(message);
  }
  state.counters["wire_bytes"] = static_cast<double>(body.size());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * json.size()));
}
BENCHMARK_CAPTURE(BM_ParseZstdJsonBody, benign_list_16m, Shape::kBenignList, true);
BENCHMARK_CAPTURE(BM_ParseZstdJsonBody, deep_list_16m, Shape::kDeepList, false);

}  // namespace
}  // namespace ferry::bench
