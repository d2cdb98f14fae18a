//===- Launch.cpp - megamoe-launch: one process per GPU -------------------===//
//
//   megamoe-launch -n N [--timeout SECONDS] [--] PROGRAM ARGS...
//
// Forks N processes running PROGRAM, one per GPU, with the environment a
// torch.distributed or megamoe rank expects: RANK, WORLD_SIZE, LOCAL_RANK,
// LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, and MEGAMOE_NCCL_ID (an
// ncclUniqueId in hex made here, so C++ ranks need no other rendezvous; this
// process stays alive for NCCL's bootstrap root). Kills the remaining ranks
// (by process id) when one fails or the timeout passes; exits non-zero if any
// rank failed.
//
//===----------------------------------------------------------------------===//
#include <nccl.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

static void usage() {
  fprintf(stderr, "usage: megamoe-launch -n N [--timeout SECONDS] [--] "
                  "PROGRAM ARGS...\n");
  exit(2);
}

int main(int argc, char **argv) {
  int n = 0, timeoutS = 600, i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-n" && i + 1 < argc)
      n = atoi(argv[++i]);
    else if (a == "--timeout" && i + 1 < argc)
      timeoutS = atoi(argv[++i]);
    else if (a == "--") {
      ++i;
      break;
    } else if (a[0] == '-')
      usage();
    else
      break;
  }
  if (n < 1 || i >= argc)
    usage();

  ncclUniqueId id;
  ncclResult_t r = ncclGetUniqueId(&id);
  if (r != ncclSuccess) {
    fprintf(stderr, "megamoe-launch: ncclGetUniqueId failed: %s\n",
            ncclGetErrorString(r));
    return 1;
  }
  std::string hex;
  for (size_t b = 0; b < sizeof id; ++b) {
    char buf[3];
    snprintf(buf, sizeof buf, "%02x", (unsigned char)id.internal[b]);
    hex += buf;
  }
  std::string port = std::to_string(20000 + getpid() % 20000);

  std::vector<pid_t> pids;
  for (int rank = 0; rank < n; ++rank) {
    pid_t pid = fork();
    if (pid < 0) {
      perror("megamoe-launch: fork");
      return 1;
    }
    if (pid == 0) {
      setenv("RANK", std::to_string(rank).c_str(), 1);
      setenv("LOCAL_RANK", std::to_string(rank).c_str(), 1);
      setenv("WORLD_SIZE", std::to_string(n).c_str(), 1);
      setenv("LOCAL_WORLD_SIZE", std::to_string(n).c_str(), 1);
      setenv("MASTER_ADDR", "127.0.0.1", 1);
      setenv("MASTER_PORT", port.c_str(), 1);
      setenv("MEGAMOE_NCCL_ID", hex.c_str(), 1);
      execvp(argv[i], argv + i);
      fprintf(stderr, "megamoe-launch: cannot run %s: %s\n", argv[i],
              strerror(errno));
      _exit(127);
    }
    pids.push_back(pid);
  }

  auto start = std::chrono::steady_clock::now();
  int failed = 0, running = n;
  std::vector<bool> done(n, false);
  while (running > 0) {
    bool killAll = false;
    for (int rank = 0; rank < n; ++rank) {
      if (done[rank])
        continue;
      int status = 0;
      pid_t w = waitpid(pids[rank], &status, WNOHANG);
      if (w == 0)
        continue;
      done[rank] = true;
      --running;
      bool ok = w > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
      if (!ok) {
        ++failed;
        killAll = true;
        if (w > 0 && WIFSIGNALED(status))
          fprintf(stderr, "megamoe-launch: rank %d killed by signal %d\n", rank,
                  WTERMSIG(status));
        else
          fprintf(stderr, "megamoe-launch: rank %d exited with status %d\n",
                  rank, w > 0 ? WEXITSTATUS(status) : -1);
      }
    }
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (running > 0 && elapsed > timeoutS) {
      fprintf(stderr, "megamoe-launch: timeout after %d s\n", timeoutS);
      killAll = true;
      failed += running;
    }
    if (killAll)
      for (int rank = 0; rank < n; ++rank)
        if (!done[rank])
          kill(pids[rank], SIGKILL);
    if (killAll && running > 0) {
      for (int rank = 0; rank < n; ++rank)
        if (!done[rank]) {
          waitpid(pids[rank], nullptr, 0);
          done[rank] = true;
        }
      running = 0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (failed)
    fprintf(stderr, "megamoe-launch: %d of %d ranks failed\n", failed, n);
  return failed ? 1 : 0;
}
