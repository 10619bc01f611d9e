#include "service/url_policy.h"

#include <gtest/gtest.h>

#include <string>

namespace ferry::shortlink {
namespace {

struct UrlCase {
  std::string input;
  std::string normalized;  // empty: refused
  std::string reason;      // a part of the refusal's message
};

UrlPolicy Policy() {
  UrlPolicy policy;
  policy.max_length = 200;
  policy.own_hosts = {"s.test"};
  return policy;
}

TEST(UrlPolicyTest, AcceptsAndNormalisesOrRefusesWithAReason) {
  const std::vector<UrlCase> cases = {
      {"https://example.com/a?b=1#c", "https://example.com/a?b=1#c", ""},
      {"HTTP://Example.COM", "http://example.com/", ""},
      {"https://example.com:443/x", "https://example.com/x", ""},
      {"http://example.com:80/x", "http://example.com/x", ""},
      {"http://example.com:8080/x", "http://example.com:8080/x", ""},
      {"https://example.com/%7euser/%2f", "https://example.com/%7euser/%2f", ""},
      {"https://bücher.example/straße", "https://xn--bcher-kva.example/stra%C3%9Fe", ""},
      {"https://%C3%BCber.example/", "https://xn--ber-goa.example/", ""},
      {"http://192.0.2.1/x", "http://192.0.2.1/x", ""},
      {"http://[2001:DB8::1]/x", "http://[2001:db8::1]/x", ""},
      {"https://example.com./", "https://example.com/", ""},
      {"javascript:alert(1)", "", "scheme 'javascript'"},
      {"JavaScript:alert(1)", "", "scheme 'javascript'"},
      {"data:text/html,<script>x</script>", "", "not an absolute URL"},
      {"data:text/html;base64,PHNjcmlwdD4=", "", "scheme 'data'"},
      {"ftp://example.com/file", "", "scheme 'ftp'"},
      {"/relative/path", "", "not an absolute URL"},
      {"//example.com/x", "", "not an absolute URL"},
      {"example.com/x", "", "not an absolute URL"},
      {"http:example.com", "", "no host"},
      {"http:///path", "", "no host"},
      {"https://good.example@evil.example/", "", "user information"},
      {"https://user:pass@example.com/", "", "user information"},
      {"https://good.example\\@evil.example/", "", "not an absolute URL"},
      {"https://exa mple.com/", "", "space or a control character"},
      {"https://example.com/\n", "", "space or a control character"},
      {"", "", "empty"},
      {"https://s.test/abc", "", "this short-link service"},
      {"https://S.TEST:8443/abc", "", "this short-link service"},
      {"https://example.com/" + std::string(200, 'a'), "", "longer than 200"},
      {"https://exa_mple.com/", "", "character a host name cannot have"},
      {"https://xn--/", "", "internationalised"},
  };
  for (const UrlCase& c : cases) {
    std::string out;
    Status s = NormalizeTargetUrl(c.input, Policy(), &out);
    if (c.normalized.empty()) {
      EXPECT_EQ(s.code(), StatusCode::INVALID_ARGUMENT) << c.input << " -> " << out;
      EXPECT_NE(s.message().find(c.reason), std::string::npos) << c.input << ": " << s;
    } else {
      EXPECT_TRUE(s.ok()) << c.input << ": " << s;
      EXPECT_EQ(out, c.normalized) << c.input;
    }
  }
}

}  // namespace
}  // namespace ferry::shortlink
