#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "auth_keyring.h"
#include "auth_token_fields.h"
#include "builtin_filters.h"
#include "ferry/codec/extension_registry.h"
#include "ferry/framework/filter.h"
#include "ferry/plugins/user_token.h"
#include "glob.h"

namespace ferry::plugins {
namespace {

constexpr std::string_view kAnonymous = "anonymous";
constexpr size_t kMaxRoleChars = 64;

// Who an allow or deny entry names: every condition it sets must hold of the call (an empty
// pattern is a condition not set). Identities are those earlier filters verified, never what the
// request says: the caller `auth` verified, the client certificate's name TLS verified, the user
// and roles `user_token` verified. Attachments are what the caller sends: a condition on them
// narrows an identity, it proves none.
struct Principal {
  bool anyone = false;  // `anonymous`: every call, with or without an identity
  std::string caller;
  std::string peer;
  std::string user;
  std::string role;
  std::vector<std::pair<std::string, std::string>> attachments;  // name, pattern

  bool Matches(const ServerContext& context) const {
    if (anyone) return true;
    if (!caller.empty() && !Verified(caller, context.verified_caller())) return false;
    if (!peer.empty() && !Verified(peer, context.peer_identity())) return false;
    if (!user.empty() && !Verified(user, context.verified_user())) return false;
    if (!role.empty() &&
        std::none_of(context.verified_roles().begin(), context.verified_roles().end(),
                     [&](const std::string& held) { return GlobMatches(role, held); })) {
      return false;
    }
    for (const auto& [name, pattern] : attachments) {
      const auto sent = context.attachments().find(name);
      if (sent == context.attachments().end() || !GlobMatches(pattern, sent->second)) return false;
    }
    return true;
  }

 private:
  // An identity nobody verified is none: no pattern, not even `*`, matches it.
  static bool Verified(const std::string& pattern, const std::string& identity) {
    return !identity.empty() && GlobMatches(pattern, identity);
  }
};

// "<service>/<method>" of a rule, or "<service>/*" for every method of the service; where it was
// written, so that one the server does not serve is refused at start naming its line.
struct MethodPattern {
  std::string service;
  std::string method;  // "*": all of the service's
  std::string path;    // e.g. "server.filters[3].rules[0].methods[1]"
  YAML::Mark mark;

  bool Matches(std::string_view call_service, std::string_view call_method) const {
    return service == call_service && (method == "*" || method == call_method);
  }
};

struct Rule {
  std::vector<MethodPattern> methods;
  std::vector<Principal> allow;
  std::vector<Principal> deny;
};

// What the filter decided at start for one method: whether it is governed (its service listed),
// and the entries of every rule that names it.
struct AuthzMethod {
  std::string name;  // "<service>/<method>", for messages
  bool governed = false;
  std::vector<const Principal*> allow;
  std::vector<const Principal*> deny;
};

// "an anonymous call", "caller 'ops', user 'ann' with roles 'operator'": who the call proved to
// be, so that the refused can tell what to fix, without a word of the rules.
std::string Who(const ServerContext& context) {
  std::string who;
  const auto add = [&who](std::string part) { who += (who.empty() ? "" : ", ") + part; };
  if (!context.verified_caller().empty()) add("caller '" + context.verified_caller() + "'");
  if (!context.verified_user().empty()) {
    std::string user = "user '" + context.verified_user() + "'";
    for (size_t i = 0; i < context.verified_roles().size(); ++i) {
      user += (i == 0 ? " with roles '" : "', '") + context.verified_roles()[i];
    }
    add(user + (context.verified_roles().empty() ? "" : "'"));
  }
  if (!context.peer_identity().empty()) add("certificate '" + context.peer_identity() + "'");
  return who.empty() ? "an anonymous call" : who;
}

// Per-method rules over the identities the filters before it verified (`auth`, `user_token`,
// TLS): a call of a listed service is answered PERMISSION_DENIED before its body is decoded
// unless an allow entry of a rule naming its method matches it and no deny entry does. Calls of
// other services pass untouched.
class AuthzFilter final : public ServerFilter {
 public:
  void Configure(config::ConfigReader& config) override {
    source_ = config.errors()->source();
    ReadServices(config);
    const YAML::Node rules = config.Raw("rules");
    if (!rules.IsDefined() || rules.IsNull() || !rules.IsSequence() || rules.size() == 0) {
      config.Invalid("rules",
                     "expected a non-empty list of {methods: [<service>/<method>, ...], allow: "
                     "[...], deny: [...]}");
      return;
    }
    rules_.reserve(rules.size());
    for (size_t i = 0; i < rules.size(); ++i) {
      config::ConfigReader item(rules[i], config.PathOf("rules") + "[" + std::to_string(i) + "]",
                                config.errors());
      if (!rules[i].IsMap()) {
        item.Invalid("methods", "expected a mapping {methods: [...], allow: [...], deny: [...]}");
        return;
      }
      ReadRule(item);
      item.RejectUnknownKeys();
    }
  }

  std::shared_ptr<void> NewMethodState(const MethodSpec& method) override {
    auto state = std::make_shared<AuthzMethod>();
    state->name = std::string(method.service) + "/" + std::string(method.method);
    state->governed = std::any_of(services_.begin(), services_.end(),
                                  [&](const Listed& s) { return s.name == method.service; });
    for (const Rule& rule : rules_) {
      const bool names_it = std::any_of(
          rule.methods.begin(), rule.methods.end(),
          [&](const MethodPattern& p) { return p.Matches(method.service, method.method); });
      if (!names_it) continue;
      for (const Principal& p : rule.allow) state->allow.push_back(&p);
      for (const Principal& p : rule.deny) state->deny.push_back(&p);
    }
    served_[std::string(method.service)].insert(std::string(method.method));
    return state;
  }

  // Every service and method the rules name must be the server's: a typo would otherwise leave
  // the method it meant with no rule (denied, or, outside the listed services, unguarded).
  Status OnServerStart() override {
    for (const Listed& service : services_) {
      if (served_.count(service.name) == 0) {
        return StartError(
            service.path, service.mark,
            "no service '" + service.name + "' on this server (it serves " + Served() + ")");
      }
    }
    for (const Rule& rule : rules_) {
      for (const MethodPattern& pattern : rule.methods) {
        const auto methods = served_.find(pattern.service);  // there: its service is listed
        if (pattern.method != "*" && methods->second.count(pattern.method) == 0) {
          std::string known;
          for (const std::string& m : methods->second) known += (known.empty() ? "" : ", ") + m;
          return StartError(pattern.path, pattern.mark,
                            "no method '" + pattern.method + "' in " + pattern.service +
                                " on this server (it has " + known + ")");
        }
      }
    }
    return Status::Ok();
  }

  Status OnAdmit(const ServerAdmission& admission) override {
    const auto& method = *static_cast<const AuthzMethod*>(admission.method_state);
    if (!method.governed) return Status::Ok();
    const ServerContext& context = admission.context;
    const auto matches = [&](const Principal* p) { return p->Matches(context); };
    if (std::none_of(method.deny.begin(), method.deny.end(), matches) &&
        std::any_of(method.allow.begin(), method.allow.end(), matches)) {
      return Status::Ok();
    }
    // The same words whether a deny entry matched or no allow entry did: the rules stay the
    // server's.
    return Status(StatusCode::PERMISSION_DENIED,
                  "authz: permission denied for " + method.name + " (" + Who(context) + ")");
  }
  Status OnCall(ServerCall&) override { return Status::Ok(); }
  bool ObservesDone() const override { return false; }

 private:
  struct Listed {
    std::string name;
    std::string path;
    YAML::Mark mark;
  };

  void ReadServices(config::ConfigReader& config) {
    const YAML::Node list = config.Raw("services");
    if (!list.IsDefined() || list.IsNull() || !list.IsSequence() || list.size() == 0) {
      config.Invalid("services",
                     "expected a non-empty list of the full service names whose every method "
                     "needs a rule that allows the call (http for the HTTP routes)");
      return;
    }
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string path = config.PathOf("services") + "[" + std::to_string(i) + "]";
      if (!list[i].IsScalar() || list[i].Scalar().empty() ||
          list[i].Scalar().find('/') != std::string::npos) {
        config.errors()->Add(path, "expected a full service name, e.g. ferry.demo.EchoService",
                             list[i].Mark());
        return;
      }
      services_.push_back({list[i].Scalar(), path, list[i].Mark()});
    }
  }

  void ReadRule(config::ConfigReader& item) {
    Rule rule;
    const YAML::Node methods = item.Raw("methods");
    if (!methods.IsDefined() || !methods.IsSequence() || methods.size() == 0) {
      item.Invalid("methods",
                   "expected a non-empty list of \"<full service>/<method>\" (or "
                   "\"<full service>/*\")");
      return;
    }
    for (size_t i = 0; i < methods.size(); ++i) {
      const std::string path = item.PathOf("methods") + "[" + std::to_string(i) + "]";
      const std::string text = methods[i].IsScalar() ? methods[i].Scalar() : "";
      const size_t slash = text.find('/');
      if (slash == std::string::npos || slash == 0 || slash + 1 == text.size()) {
        item.errors()->Add(
            path,
            "expected \"<full service>/<method>\" or \"<full service>/*\", got '" + text + "'",
            methods[i].Mark());
        return;
      }
      MethodPattern pattern{text.substr(0, slash), text.substr(slash + 1), path, methods[i].Mark()};
      if (std::none_of(services_.begin(), services_.end(),
                       [&](const Listed& s) { return s.name == pattern.service; })) {
        item.errors()->Add(path,
                           "service '" + pattern.service +
                               "' is not among services, whose methods the rules are for",
                           methods[i].Mark());
        return;
      }
      rule.methods.push_back(std::move(pattern));
    }
    if (!ReadPrincipals(item, "allow", &rule.allow) || !ReadPrincipals(item, "deny", &rule.deny)) {
      return;
    }
    if (rule.allow.empty() && rule.deny.empty()) {
      item.Invalid("allow",
                   "must list who may call these methods ([anonymous] for anyone), or deny: "
                   "who may not");
      return;
    }
    rules_.push_back(std::move(rule));
  }

  // `key: [anonymous | {caller, peer, user, role, attachments}, ...]`; false after reporting.
  bool ReadPrincipals(config::ConfigReader& item, std::string_view key,
                      std::vector<Principal>* out) {
    const YAML::Node list = item.Raw(key);
    if (!list.IsDefined() || list.IsNull()) return true;
    if (!list.IsSequence()) {
      item.Invalid(key, "expected a list of anonymous or {caller, peer, user, role, attachments}");
      return false;
    }
    const bool deny = key == "deny";
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string path = item.PathOf(key) + "[" + std::to_string(i) + "]";
      if (list[i].IsScalar()) {
        if (list[i].Scalar() != kAnonymous || deny) {
          item.errors()->Add(
              path,
              deny ? "expected {caller, peer, user, role, attachments}: anonymous is for allow "
                     "(every call); to refuse calls that prove no identity, leave them out of "
                     "allow"
                   : "expected anonymous or a mapping of caller, peer, user, role and "
                     "attachments, got '" +
                         list[i].Scalar() + "'",
              list[i].Mark());
          return false;
        }
        out->push_back(Principal{.anyone = true});
        continue;
      }
      config::ConfigReader entry(list[i], path, item.errors());
      if (!list[i].IsMap()) {
        entry.Invalid("caller",
                      "expected anonymous or a mapping of caller, peer, user, role and "
                      "attachments");
        return false;
      }
      Principal principal;
      if (!ReadPattern(entry, "caller", kMaxCallerChars, &principal.caller) ||
          !ReadPattern(entry, "peer", 0, &principal.peer) ||
          !ReadPattern(entry, "user", kMaxUserIdChars, &principal.user) ||
          !ReadPattern(entry, "role", kMaxRoleChars, &principal.role)) {
        return false;
      }
      config::ConfigReader attachments = entry.Section("attachments");
      for (const std::string& name : entry.KeysOf("attachments")) {
        std::string pattern;
        attachments.String(name, &pattern);
        principal.attachments.emplace_back(name, pattern);
      }
      entry.RejectUnknownKeys();
      if (principal.caller.empty() && principal.peer.empty() && principal.user.empty() &&
          principal.role.empty() && principal.attachments.empty()) {
        entry.Invalid("caller",
                      "set at least one of caller, peer, user, role and attachments (or write "
                      "anonymous for every call)");
        return false;
      }
      out->push_back(std::move(principal));
    }
    return true;
  }

  // A pattern of an identity, `any` (or "*") for any verified one. `max_chars` 0: any text (a
  // certificate's name); else 1-max_chars of [A-Za-z0-9._@-] and `*`, as the identities are.
  static bool ReadPattern(config::ConfigReader& entry, std::string_view key, size_t max_chars,
                          std::string* out) {
    entry.String(key, out);  // first: read, it is a key the entry may have, even when absent
    if (!entry.Has(key)) return true;
    if (*out == "any") *out = "*";
    if (out->empty() || (max_chars != 0 && !IsIdentityPattern(*out, max_chars))) {
      entry.Invalid(key, "expected any, or a pattern of " +
                             (max_chars != 0 ? "1-" + std::to_string(max_chars) +
                                                   " characters of A-Z a-z 0-9 . _ @ - and "
                                             : std::string("characters and ")) +
                             "* (any run of them), got '" + *out + "'");
      return false;
    }
    return true;
  }

  Status StartError(const std::string& path, const YAML::Mark& mark,
                    const std::string& message) const {
    config::ConfigErrors errors(source_);
    errors.Add(path, message, mark);
    return errors.first();
  }

  std::string Served() const {
    std::string names;
    for (const auto& [service, methods] : served_) names += (names.empty() ? "" : ", ") + service;
    return names.empty() ? "none" : names;
  }

  std::string source_;
  std::vector<Listed> services_;
  std::vector<Rule> rules_;  // not resized after Configure: method states point into it
  std::map<std::string, std::set<std::string>> served_;  // by service, from NewMethodState
};

}  // namespace

void RegisterAuthzFilter(ExtensionRegistry& registry) {
  registry.Register<ServerFilter>("authz", [] { return std::make_shared<AuthzFilter>(); });
}

}  // namespace ferry::plugins
