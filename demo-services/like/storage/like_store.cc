#include "storage/like_store.h"

namespace ferry::like {

Status RequestIdReused(const std::string& request_id, bool liked) {
  return Status(StatusCode::INVALID_ARGUMENT,
                "request_id '" + request_id + "' was a SetLike with liked " +
                    (liked ? "false" : "true") +
                    " of this content by this user; a new request needs a new id");
}

}  // namespace ferry::like
