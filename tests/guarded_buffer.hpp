// Memory fenced by PROT_NONE pages, for tests and the fuzzer: any access past either edge of
// the tensor faults at once.
#pragma once
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace xt {

// `bytes` of memory between two PROT_NONE pages. With at_end the tensor ends exactly at the
// upper guard, so any access past its end faults; otherwise it starts `misalign` bytes after
// the lower guard, so any access before its start faults.
class guarded_buffer {
public:
    explicit guarded_buffer(size_t bytes, bool at_end = true, size_t misalign = 0) : bytes_(bytes) {
        const size_t pg = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        const size_t data_pages = (bytes + misalign + pg - 1) / pg + 1;
        total_ = (data_pages + 2) * pg;
        void *m = mmap(nullptr, total_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) throw std::runtime_error("guarded_buffer: mmap failed");
        base_ = static_cast<uint8_t *>(m);
        mprotect(base_, pg, PROT_NONE);
        mprotect(base_ + (data_pages + 1) * pg, pg, PROT_NONE);
        uint8_t *lo = base_ + pg, *hi = base_ + (data_pages + 1) * pg;
        ptr_ = at_end ? hi - bytes : lo + misalign;
    }
    ~guarded_buffer() { munmap(base_, total_); }
    guarded_buffer(const guarded_buffer &) = delete;
    guarded_buffer &operator=(const guarded_buffer &) = delete;
    uint8_t *data() { return ptr_; }
    size_t size() const { return bytes_; }

private:
    uint8_t *base_ = nullptr, *ptr_ = nullptr;
    size_t total_ = 0, bytes_ = 0;
};

}  // namespace xt
