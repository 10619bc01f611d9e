#pragma once

#include <cstdint>

#include "ferry/framework/http.h"
#include "http/http_router.h"

namespace ferry::server {

class ServerConnection;

// The JSON gateway (docs/http.md): `POST /<full.service.Name>/<Method>` of a service this server
// serves calls the method with the body as its request in protobuf's JSON mapping, through the
// same server filters and business pool as a binary call, and answers its response as JSON.
// Answers through `connection.AnswerHttp(exchange, ...)`. False, having done nothing, when the
// path names no service served here: a route may serve it then.
bool StartGatewayCall(ServerConnection& connection, const HttpRequest& request, uint64_t exchange);

// Runs the matched route's handler for `request`: on the IO thread when the route says so, else
// on the business pool (503 when it is full). A handler that throws is answered 500. A route
// that is not an admin page goes through the server's filters first (RouteCall); an admin page
// is answered 403 instead when the request fails ServerCore::admin_guard's Host or Origin check.
void RunRoute(ServerConnection& connection, const http::HttpRouter::Match& match,
              const HttpRequest& request, uint64_t exchange);

}  // namespace ferry::server
