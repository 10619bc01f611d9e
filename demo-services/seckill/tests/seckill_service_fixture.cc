#include "seckill_service_fixture.h"

namespace ferry::seckill::testing {
namespace {

std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::kEmbedded ? "embedded" : "redis_mariadb";
}

}  // namespace

// The one instantiation of the suite whose tests the seckill_service_*_test.cc files define.
INSTANTIATE_TEST_SUITE_P(Backends, SeckillServiceTest,
                         ::testing::Values(Backend::kEmbedded, Backend::kRedisMariaDb),
                         BackendName);

}  // namespace ferry::seckill::testing
