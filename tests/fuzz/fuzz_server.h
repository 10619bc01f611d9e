#pragma once

#include <cstdint>

#include "ferry/framework/server.h"
#include "recording_echo_service.h"

namespace ferry::fuzz {

// A server on loopback serving RecordingEchoService over both protocols, started on first use
// and stopped as the process exits: it lives as long as the fuzzing process, whose inputs all
// talk to it.
struct FuzzServer {
  Server* server = nullptr;
  uint16_t port = 0;
  RecordingEchoService* service = nullptr;
};
const FuzzServer& TheServer();

}  // namespace ferry::fuzz
