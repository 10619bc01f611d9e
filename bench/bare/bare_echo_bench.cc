// Closed-loop load against bare-echo-server. Each connection pipelines its calls: the server
// answers in order, so the send times of the calls in flight form a FIFO.
#include <boost/asio/connect.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "ferry/bench/flag_parser.h"
#include "ferry/bench/load_driver.h"
#include "ferry/bench/load_options.h"
#include "ferry/bench/load_report.h"
#include "frame_reader.h"
#include "io_context_pool.h"

namespace ferry::bench {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using Clock = LoadDriver::Clock;

constexpr std::string_view kUnavailable = "UNAVAILABLE";
constexpr std::string_view kBadEcho = "BAD_ECHO";

// Calls in flight on one connection, oldest first; never more than --depth of them.
class InFlightCalls {
 public:
  struct Entry {
    LoadDriver::Call call;
    Clock::time_point sent;
  };

  explicit InFlightCalls(size_t capacity) : entries_(capacity) {}

  void Push(const Entry& entry) { entries_[(head_ + size_++) % entries_.size()] = entry; }
  Entry Pop() {
    const Entry entry = entries_[head_];
    head_ = (head_ + 1) % entries_.size();
    --size_;
    return entry;
  }
  bool empty() const { return size_ == 0; }

 private:
  std::vector<Entry> entries_;
  size_t head_ = 0;
  size_t size_ = 0;
};

class BareConnection {
 public:
  BareConnection(asio::io_context& context, LoadDriver& driver, const LoadOptions& options)
      : socket_(context), driver_(driver), in_flight_(options.depth) {
    request_.resize(kLengthPrefixBytes + options.size, 'x');
    PutLengthPrefix(options.size, request_.data());
  }

  // Throws boost::system::system_error when the server cannot be reached.
  void Connect(const tcp::resolver::results_type& endpoints) {
    asio::connect(socket_, endpoints);
    socket_.set_option(tcp::no_delay(true));
    ReadMore();
  }

  // From any thread; hops to the connection's own.
  void Issue(const LoadDriver::Call& call) {
    asio::dispatch(socket_.get_executor(), [this, call] { IssueHere(call); });
  }

 private:
  void IssueHere(const LoadDriver::Call& call) {
    if (failed_) {
      // Posted, not completed inline, so that a dead connection cannot monopolize its thread.
      asio::post(socket_.get_executor(), [this, call] {
        driver_.Complete(call, kUnavailable, std::chrono::nanoseconds(0));
      });
      return;
    }
    in_flight_.Push({call, Clock::now()});
    pending_.append(request_);
    // Inside a read handler the write waits until every reply of the read has been handled,
    // so the calls they trigger leave together.
    if (!writing_ && !handling_replies_) WriteMore();
  }

  void ReadMore() {
    socket_.async_read_some(reader_.Prepare(),
                            [this](boost::system::error_code ec, size_t n) { OnRead(ec, n); });
  }

  void OnRead(boost::system::error_code ec, size_t n) {
    if (ec) return Fail("read: " + ec.message());
    reader_.Commit(n);
    handling_replies_ = true;
    for (std::string_view frame = reader_.NextFrame(); !frame.empty();
         frame = reader_.NextFrame()) {
      if (in_flight_.empty()) {
        handling_replies_ = false;
        return Fail("reply without a request");
      }
      const InFlightCalls::Entry entry = in_flight_.Pop();
      driver_.Complete(entry.call, frame.size() == request_.size() ? std::string_view() : kBadEcho,
                       Clock::now() - entry.sent);
    }
    handling_replies_ = false;
    if (reader_.oversized()) return Fail("oversized reply");
    if (!writing_ && !pending_.empty()) WriteMore();
    ReadMore();
  }

  void WriteMore() {
    writing_ = true;
    outgoing_.swap(pending_);
    pending_.clear();
    asio::async_write(socket_, asio::buffer(outgoing_),
                      [this](boost::system::error_code ec, size_t) { OnWritten(ec); });
  }

  void OnWritten(boost::system::error_code ec) {
    writing_ = false;
    if (ec) return Fail("write: " + ec.message());
    if (!pending_.empty()) WriteMore();
  }

  void Fail(const std::string& why) {
    if (failed_) return;
    failed_ = true;
    std::cerr << "bare-echo-bench: connection lost (" << why << ")" << std::endl;
    boost::system::error_code ignored;
    socket_.close(ignored);
    pending_.clear();
    while (!in_flight_.empty()) {
      driver_.Complete(in_flight_.Pop().call, kUnavailable, std::chrono::nanoseconds(0));
    }
  }

  tcp::socket socket_;
  LoadDriver& driver_;
  std::string request_;  // one complete frame, built once
  InFlightCalls in_flight_;
  FrameReader reader_;
  std::string pending_;   // requests not yet handed to a write
  std::string outgoing_;  // the write in flight; swapped with pending_ to reuse both buffers
  bool writing_ = false;
  bool handling_replies_ = false;
  bool failed_ = false;
};

class BareTransport : public LoadDriver::Transport {
 public:
  explicit BareTransport(std::vector<std::unique_ptr<BareConnection>>& connections)
      : connections_(connections) {}
  void Issue(const LoadDriver::Call& call) override { connections_[call.connection]->Issue(call); }

 private:
  std::vector<std::unique_ptr<BareConnection>>& connections_;
};

int Main(int argc, char** argv) {
  LoadOptions options;
  FlagParser flags("bare-echo-bench");
  AddLoadFlags(flags, &options);
  flags.AddCheck([&options](std::string* error) {
    if (options.slow_ratio == 0) return true;
    *error = "--slow-ratio: the bare protocol replies in order and has no slow method";
    return false;
  });
  if (auto exit_code = flags.ParseOrExit(argc, argv)) return *exit_code;

  HostPort target;
  std::string error;
  ParseHostPort(options.target, &target, &error);  // already validated by the flag check
  IoContextPool pool(options.threads);
  LoadDriver driver(options);
  std::vector<std::unique_ptr<BareConnection>> connections;
  try {
    tcp::resolver resolver(pool.At(0));
    const auto endpoints = resolver.resolve(target.host, std::to_string(target.port));
    for (uint32_t i = 0; i < options.conns; ++i) {
      connections.push_back(std::make_unique<BareConnection>(pool.At(i), driver, options));
      connections.back()->Connect(endpoints);
    }
  } catch (const boost::system::system_error& e) {
    std::cerr << "bare-echo-bench: cannot connect to " << options.target << ": " << e.what()
              << "\n";
    return 1;
  }
  pool.Start();

  BareTransport transport(connections);
  const LoadReport report("bare-echo-bench", options, std::cout);
  const LoadSummary summary = driver.Run(transport, report);
  pool.Stop();
  report.PrintSummary(summary);
  return 0;
}

}  // namespace
}  // namespace ferry::bench

int main(int argc, char** argv) { return ferry::bench::Main(argc, argv); }
