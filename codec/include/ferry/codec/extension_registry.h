#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ferry {

// The frame header names serializers and compressors by a one-byte wire id (their id()): ids
// below this one are Ferry's built-ins', this one and above plugins'.
inline constexpr int kFirstPluginWireId = 128;

// One place where every extension point is looked up by name: serializers, compressors,
// load balancers, registries, filters. Built-ins and dlopen'ed plugins register the same way.
//
// An interface opts in with `static constexpr std::string_view kExtensionKind = "...";`. Kinds
// are strings rather than typeid so that lookups agree across shared-object boundaries. One
// whose extensions have an `id()` (serializers, compressors) has wire ids, checked when each
// registers: in the range of the registry's origin and unique in the kind.
class ExtensionRegistry {
 public:
  template <class Interface>
  using Factory = std::function<std::shared_ptr<Interface>()>;

  // Who registers here: built-ins (the process-wide registry), or one plugin, into a registry
  // of its own that the host then adopts whole (LoadPlugin).
  enum class Origin : uint8_t { kBuiltin, kPlugin };

  explicit ExtensionRegistry(Origin origin = Origin::kBuiltin) : origin_(origin) {}
  ExtensionRegistry(const ExtensionRegistry&) = delete;
  ExtensionRegistry& operator=(const ExtensionRegistry&) = delete;

  // The process-wide registry; codec's built-ins are registered on first use.
  static ExtensionRegistry& Instance();

  // Throws std::invalid_argument when the kind already has an extension of that name, or when
  // the extension's wire id is outside the origin's range (built-ins 0-127, plugins 128-255)
  // or already another's of the kind.
  template <class Interface>
  void Register(std::string name, Factory<Interface> factory) {
    int wire_id = kNoWireId;
    if constexpr (requires(const Interface& extension) { extension.id(); }) {
      if (const auto extension = factory()) wire_id = extension->id();
    }
    RegisterErased(std::string(Interface::kExtensionKind), std::move(name), wire_id,
                   [f = std::move(factory)]() -> std::shared_ptr<void> { return f(); });
  }

  // Moves every extension of `staged` here, or none: throws std::invalid_argument, leaving both
  // registries as they were, when this one already has a name or a wire id of `staged`'s.
  void Adopt(ExtensionRegistry& staged);

  // What the first registration this registry refused said; empty when none was. A plugin that
  // catches the exception and goes on is still refused for it.
  std::string first_refusal() const;

  // nullptr when nothing of that kind has that name.
  template <class Interface>
  std::shared_ptr<Interface> Create(std::string_view name) const {
    return std::static_pointer_cast<Interface>(CreateErased(Interface::kExtensionKind, name));
  }

  template <class Interface>
  std::vector<std::string> Names() const {
    return NamesErased(Interface::kExtensionKind);
  }

 private:
  using ErasedFactory = std::function<std::shared_ptr<void>()>;
  static constexpr int kNoWireId = -1;

  void RegisterErased(std::string kind, std::string name, int wire_id, ErasedFactory factory);
  // Throws std::invalid_argument, remembering the first refusal. Requires mu_.
  [[noreturn]] void Refuse(std::string message);
  std::shared_ptr<void> CreateErased(std::string_view kind, std::string_view name) const;
  std::vector<std::string> NamesErased(std::string_view kind) const;

  const Origin origin_;
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, ErasedFactory, std::less<>> factories_;
  // (kind, wire id) -> name, for kinds with wire ids.
  std::map<std::pair<std::string, int>, std::string> wire_ids_;
  std::string first_refusal_;
};

}  // namespace ferry

// Registers a library's built-in extensions when the library is loaded, by calling the same
// `void fn(ferry::ExtensionRegistry&)` that a plugin's entry point calls. A static library
// using it must be linked whole (see ferry_whole_archive_library in cmake/) or the linker drops
// the unreferenced registrar.
#define FERRY_REGISTER_BUILTIN_EXTENSIONS(fn)                \
  namespace {                                                \
  [[maybe_unused]] const bool ferry_builtin_registrar_##fn = \
      (fn(::ferry::ExtensionRegistry::Instance()), true);    \
  }
