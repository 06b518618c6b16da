#include "cache.hpp"

#include <atomic>
#include <cstdlib>
#include <future>
#include <list>
#include <mutex>
#include <string>
#include <unordered_map>

namespace xinterp {
namespace {

struct key_t {
    problem p;
    kernel_isa isa;
    bool operator==(const key_t &o) const { return isa == o.isa && p == o.p; }
};

std::atomic<problem_hash_fn> g_hash{&hash_problem};

struct key_hash {
    size_t operator()(const key_t &k) const { return static_cast<size_t>(g_hash.load()(k.p, k.isa)); }
};

using kernel_future = std::shared_future<std::shared_ptr<const kernel>>;

size_t capacity_from_env() { return static_cast<size_t>(env_nonneg_int("XINTERP_CACHE_CAPACITY", 1024)); }

class lru_cache {
public:
    std::shared_ptr<const kernel> get_or_create(const problem &p, kernel_isa isa, bool *hit) {
        std::unique_lock<std::mutex> lock(mu_);
        ensure_capacity();
        if (capacity_ == 0) {
            ++stats_.misses;
            lock.unlock();
            *hit = false;
            return create_kernel(p, isa);
        }
        key_t key{p, isa};
        auto it = map_.find(key);
        if (it != map_.end()) {
            lru_.splice(lru_.begin(), lru_, it->second);
            ++stats_.hits;
            kernel_future f = it->second->fut;
            lock.unlock();
            *hit = true;
            return f.get();  // waits while another thread generates it
        }
        ++stats_.misses;
        std::promise<std::shared_ptr<const kernel>> promise;
        const uint64_t id = ++next_id_;
        lru_.push_front(entry{key, promise.get_future().share(), id});
        map_.emplace(key, lru_.begin());
        evict();
        lock.unlock();
        *hit = false;
        try {
            auto k = create_kernel(p, isa);
            promise.set_value(k);
            return k;
        } catch (...) {
            // Waiters get the same error; the entry goes, if it is still ours, so that the next
            // request retries.
            promise.set_exception(std::current_exception());
            std::lock_guard<std::mutex> relock(mu_);
            auto again = map_.find(key);
            if (again != map_.end() && again->second->id == id) {
                lru_.erase(again->second);
                map_.erase(again);
            }
            throw;
        }
    }

    void set_capacity(size_t c) {
        std::lock_guard<std::mutex> lock(mu_);
        capacity_ = c;
        capacity_set_ = true;
        evict();
    }
    size_t capacity() {
        std::lock_guard<std::mutex> lock(mu_);
        ensure_capacity();
        return capacity_;
    }
    cache_stats stats() {
        std::lock_guard<std::mutex> lock(mu_);
        ensure_capacity();
        cache_stats s = stats_;
        s.entries = map_.size();
        s.capacity = capacity_;
        s.generations = kernel_generations();
        return s;
    }
    void clear() {
        std::lock_guard<std::mutex> lock(mu_);
        map_.clear();
        lru_.clear();
        stats_ = cache_stats{};
    }

private:
    std::mutex mu_;
    struct entry {
        key_t key;
        kernel_future fut;
        uint64_t id;  // tells a failed generation's entry from a later one for the same key
    };
    std::list<entry> lru_;  // front: most recently used
    uint64_t next_id_ = 0;
    std::unordered_map<key_t, decltype(lru_)::iterator, key_hash> map_;
    size_t capacity_ = 1024;
    bool capacity_set_ = false;
    cache_stats stats_;

    void ensure_capacity() {  // read the environment once, at first use; a bad value throws
        if (capacity_set_) return;
        capacity_ = capacity_from_env();
        capacity_set_ = true;
    }
    void evict() {
        while (map_.size() > capacity_) {
            map_.erase(lru_.back().key);
            lru_.pop_back();
            ++stats_.evictions;
        }
    }
};

lru_cache &cache() {
    static lru_cache c;
    return c;
}

}  // namespace

std::shared_ptr<const kernel> cache_get_or_create(const problem &p, kernel_isa isa, bool *hit) {
    return cache().get_or_create(p, isa, hit);
}

void cache_set_hash_for_testing(problem_hash_fn fn) {
    cache().clear();  // the map's buckets were placed with the old function
    g_hash.store(fn ? fn : &hash_problem);
}

void set_cache_capacity(size_t capacity) { cache().set_capacity(capacity); }
size_t get_cache_capacity() { return cache().capacity(); }
cache_stats get_cache_stats() { return cache().stats(); }
void clear_cache() { cache().clear(); }

}  // namespace xinterp
