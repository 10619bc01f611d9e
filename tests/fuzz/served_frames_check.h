#pragma once

#include "request_reader.h"

namespace ferry::fuzz {

// Sends the input's binary requests to TheServer() one after the other on one connection and
// checks each answer, and what the handler saw, against what the request's meta says.
void CheckServedFrames(RequestReader* input);

}  // namespace ferry::fuzz
