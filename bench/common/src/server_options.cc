#include "ferry/bench/server_options.h"

namespace ferry::bench {

void AddServerFlags(FlagParser& flags, ServerOptions* o) {
  flags.AddString("--bind", "ADDRESS", &o->bind, "address to listen on (default 0.0.0.0)");
  flags.AddInteger<uint16_t>("--port", "P", &o->port, 0, 65'535,
                             "port to listen on; 0 picks a free one (default 0)");
  flags.AddInteger<uint32_t>("--threads", "T", &o->threads, 1, 1'024, "IO threads (default 1)");
}

}  // namespace ferry::bench
