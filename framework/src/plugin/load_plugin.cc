#include <dlfcn.h>

#include <exception>
#include <filesystem>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>

#include "ferry/codec/extension_registry.h"
#include "ferry/framework/plugin.h"
#include "logger.h"

namespace ferry {
namespace {

constexpr const char* kAbiVersionSymbol = "ferry_plugin_abi_version";
constexpr const char* kRegisterSymbol = "ferry_plugin_register";

Status Refuse(const std::string& path, const std::string& cause) {
  return Status(StatusCode::FAILED_PRECONDITION, "cannot load plugin '" + path + "': " + cause);
}

// Looked up by canonical path, so that "./a.so" and "a.so" count as one plugin.
struct LoadedPlugins {
  std::mutex mu;
  std::set<std::filesystem::path> paths;
};

LoadedPlugins& Loaded() {
  static LoadedPlugins loaded;
  return loaded;
}

// Once the plugin's register function has run, its code may back registered factories, so the
// handle is never closed; before that, a refused plugin is unloaded again.
class Library {
 public:
  explicit Library(void* handle) : handle_(handle) {}
  ~Library() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  void* Symbol(const char* name) const { return dlsym(handle_, name); }
  void KeepLoaded() { handle_ = nullptr; }

 private:
  void* handle_;
};

}  // namespace

Status LoadPlugin(const std::string& path) {
  std::error_code error;
  const std::filesystem::path canonical = std::filesystem::canonical(path, error);
  if (error) return Refuse(path, error.message());
  if (!std::filesystem::is_regular_file(canonical, error)) return Refuse(path, "not a file");

  LoadedPlugins& loaded = Loaded();
  std::lock_guard lock(loaded.mu);
  if (loaded.paths.contains(canonical)) return Status::Ok();

  // RTLD_LOCAL: a plugin's symbols serve only itself, so two plugins cannot collide. RTLD_NOW:
  // an unresolved symbol fails here, with a message, not at the first call that needs it.
  void* handle = dlopen(canonical.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* cause = dlerror();
    return Refuse(path, std::string("not a loadable shared object: ") +
                            (cause != nullptr ? cause : "unknown dlopen error"));
  }
  Library library(handle);
  auto abi_version = reinterpret_cast<FerryPluginAbiVersionFn>(library.Symbol(kAbiVersionSymbol));
  auto register_fn = reinterpret_cast<FerryPluginRegisterFn>(library.Symbol(kRegisterSymbol));
  auto missing = [&](const char* symbol) {
    return Refuse(path, std::string("missing symbol '") + symbol +
                            "': not a Ferry plugin, or built without exporting it");
  };
  if (abi_version == nullptr) return missing(kAbiVersionSymbol);
  if (register_fn == nullptr) return missing(kRegisterSymbol);
  const uint32_t version = abi_version();
  if (version != FERRY_PLUGIN_ABI_VERSION) {
    return Refuse(path, "built for ABI " + std::to_string(version) + ", this Ferry speaks " +
                            std::to_string(FERRY_PLUGIN_ABI_VERSION));
  }

  library.KeepLoaded();
  // The plugin registers into a registry of its own, adopted whole once it succeeded: a plugin
  // that fails halfway leaves nothing behind, and nobody meanwhile uses what it registered.
  ExtensionRegistry staged(ExtensionRegistry::Origin::kPlugin);
  int result = 0;
  try {
    result = register_fn(&staged);
  } catch (const std::exception& e) {
    return Refuse(path, std::string(kRegisterSymbol) + " threw: " + e.what());
  } catch (...) {
    return Refuse(path, std::string(kRegisterSymbol) + " threw a non-standard exception");
  }
  if (result != 0) {
    return Refuse(path, std::string(kRegisterSymbol) + " failed with " + std::to_string(result));
  }
  // Even when the plugin caught the exception and went on.
  if (const std::string refusal = staged.first_refusal(); !refusal.empty()) {
    return Refuse(path, "a registration failed: " + refusal);
  }
  try {
    ExtensionRegistry::Instance().Adopt(staged);
  } catch (const std::invalid_argument& e) {
    return Refuse(path, e.what());
  }
  loaded.paths.insert(canonical);
  Logger().info("ferry: loaded plugin {}", canonical.string());
  return Status::Ok();
}

}  // namespace ferry
