#pragma once

#include <string>
#include <string_view>

#include "channel_flags.h"
#include "ferry/bench/flag_parser.h"
#include "ferry/bench/load_options.h"

namespace ferry::bench {

// The flags of a command that keeps a window of --conns x --depth calls out on its service:
// --target, --conns, --depth, --threads and the channel flags, with CheckLoadShape's rules. The
// defaults shown are what `load` holds.
// `server` names what --target is ("the seckill-server"), `calls` what the calls are
// ("purchases").
void AddWindowFlags(FlagParser& flags, LoadOptions* load, ChannelFlags* channel,
                    std::string_view server, std::string_view calls);

// --user-token-key ID:SECRET_FILE: the key id and the secret read from the file, checked as
// flags (a readable, non-empty secret; a well-formed key id). `signs` says what gets a token.
void AddUserTokenKeyFlag(FlagParser& flags, std::string_view signs, std::string* key_id,
                         std::string* secret);

// A flag `name` of the form ID:SECRET_FILE: a key id and the secret read from the file, checked
// as flags (a readable, non-empty secret; a well-formed key id).
void AddKeyFlag(FlagParser& flags, std::string name, std::string help, std::string* key_id,
                std::string* secret);

// --operator-key ID:SECRET_FILE: the `auth` key (id and the secret read from the file) that
// operator calls are signed with, as the provider's `auth` filter expects. `signs` says which.
void AddOperatorKeyFlag(FlagParser& flags, std::string_view signs, std::string* key_id,
                        std::string* secret);

// "target=... conns=... depth=... threads=..." for a command's first line; in registry mode the
// target is the registry.
std::string DescribeWindow(const LoadOptions& load, const ChannelFlags& channel);

}  // namespace ferry::bench
