#pragma once

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

// One place where every extension point is looked up by name: serializers, compressors,
// load balancers, registries, filters. Built-ins and dlopen'ed plugins register the same way.
//
// An interface opts in with `static constexpr std::string_view kExtensionKind = "...";`. Kinds
// are strings rather than typeid so that lookups agree across shared-object boundaries.
class ExtensionRegistry {
 public:
  template <class Interface>
  using Factory = std::function<std::shared_ptr<Interface>()>;

  // The process-wide registry; codec's built-ins are registered on first use.
  static ExtensionRegistry& Instance();

  // Throws std::invalid_argument when the kind already has an extension of that name.
  template <class Interface>
  void Register(std::string name, Factory<Interface> factory) {
    RegisterErased(std::string(Interface::kExtensionKind), std::move(name),
                   [f = std::move(factory)]() -> std::shared_ptr<void> { return f(); });
  }

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

  void RegisterErased(std::string kind, std::string name, ErasedFactory factory);
  std::shared_ptr<void> CreateErased(std::string_view kind, std::string_view name) const;
  std::vector<std::string> NamesErased(std::string_view kind) const;

  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, ErasedFactory, std::less<>> factories_;
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
