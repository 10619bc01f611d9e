#pragma once

#include "command.h"

namespace ferry::bench {

// `ferry-bench echo`: closed-loop load on ferry.demo.EchoService (build/bin/echo-server).
extern const Command kEchoCommand;

}  // namespace ferry::bench
