#pragma once

#include "request_reader.h"

namespace ferry::fuzz {

// Sends the input's HTTP request to TheServer()'s JSON gateway and checks the answer, and what
// the handler saw, against what the request's headers say.
void CheckGatewayHeaders(RequestReader* input);

}  // namespace ferry::fuzz
