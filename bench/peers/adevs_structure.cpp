// SPDX-License-Identifier: MIT
// bench/structure.sh's model (bench/structure.c) on adevs 3.3's dynamic structure,
// written here against adevs' public API; adevs itself is built outside this
// repository (bench/peers/README.md). A critical birth-death population of cells in
// one network ("dish"): each cell lives an exponential time (rate 1), emits one
// value, then divides or dies with probability 1/2 each. The cells draw from the same
// 64-bit LCG as bench/structure.c, seeded by their serial numbers, so both programs
// make the same changes and must end with the same population.
// A cell asks for its change in delta_int and returns true from model_transition();
// the dish's model_transition() then adds and removes cells, and adevs diffs the
// dish's component set before and after (its way of finding what changed).
//   adevs_structure N0 CHANGES  ->  one line as structure_bench prints it
#include <adevs.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

typedef adevs::PortValue<int> IO;

static double draw(uint64_t *r) {  // uniform in (0, 1)
  *r = *r * 6364136223846793005ull + 1442695040888963407ull;
  return ((double)(*r >> 11) + 0.5) / 9007199254740992.0;
}

struct World {
  uint64_t serial = 0, changes = 0, limit = 0;
  long live = 0;
};

class Dish;

class Cell : public adevs::Atomic<IO> {
 public:
  Cell(World *w, Dish *d, uint64_t seed) : w(w), dish(d), rng(seed * 0x9e3779b97f4a7c15ull + 1) {
    life = -std::log(draw(&rng));
    w->live++;
  }
  ~Cell() { w->live--; }
  double ta() { return life; }
  void output_func(adevs::Bag<IO> &yb) { yb.insert(IO(0, 1)); }
  void delta_int();
  void delta_ext(double, const adevs::Bag<IO> &) {}
  void delta_conf(const adevs::Bag<IO> &) { delta_int(); }
  void gc_output(adevs::Bag<IO> &) {}
  bool model_transition() { return want != 0; }
  int want = 0;  // 1 divide, -1 die
  size_t index = 0;  // in the dish's vector
 private:
  World *w;
  Dish *dish;
  uint64_t rng;
  double life;
};

class Dish : public adevs::Network<IO> {
 public:
  explicit Dish(World *w) : w(w) {}
  ~Dish() {
    for (Cell *c : cells) delete c;
  }
  void getComponents(adevs::Set<adevs::Devs<IO> *> &c) {
    for (Cell *x : cells) c.insert(x);
  }
  void route(const IO &x, adevs::Devs<IO> *model, adevs::Bag<adevs::Event<IO>> &r) {
    if (model == this) return;  // (no inputs)
    r.insert(adevs::Event<IO>(this, x));  // a cell's output leaves the dish
  }
  bool model_transition() {
    for (Cell *c : asked) {
      if (c->want > 0) {
        Cell *n = new Cell(w, this, ++w->serial);
        n->setParent(this);
        add(n);
        c->want = 0;
      } else {
        remove(c);  // (adevs deletes it after the change)
        c->want = 0;
      }
    }
    asked.clear();
    return false;
  }
  void ask(Cell *c) { asked.push_back(c); }
  void add(Cell *c) {
    c->index = cells.size();
    cells.push_back(c);
  }

 private:
  void remove(Cell *c) {  // swap-remove from the vector
    size_t i = c->index;
    cells[i] = cells.back();
    cells[i]->index = i;
    cells.pop_back();
  }
  World *w;
  std::vector<Cell *> cells;
  std::vector<Cell *> asked;
};

void Cell::delta_int() {
  life = -std::log(draw(&rng));
  if (w->changes >= w->limit) return;
  w->changes++;
  want = draw(&rng) < 0.5 && w->live > 1 ? -1 : 1;
  dish->ask(this);
}

class Counter : public adevs::Atomic<IO> {
 public:
  double ta() { return adevs_inf<double>(); }
  void delta_int() {}
  void delta_ext(double, const adevs::Bag<IO> &xb) { n += xb.size(); }
  void delta_conf(const adevs::Bag<IO> &xb) { n += xb.size(); }
  void output_func(adevs::Bag<IO> &) {}
  void gc_output(adevs::Bag<IO> &) {}
  uint64_t n = 0;
};

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: adevs_structure N0 CHANGES\n");
    return 2;
  }
  long n0 = std::atol(argv[1]);
  World w;
  w.limit = (uint64_t)std::atoll(argv[2]);
  adevs::Digraph<int> top;
  Dish *dish = new Dish(&w);
  Counter *counter = new Counter;
  for (long i = 0; i < n0; i++) {
    Cell *c = new Cell(&w, dish, ++w.serial);
    c->setParent(dish);
    dish->add(c);
  }
  top.add(dish);
  top.add(counter);
  top.couple(dish, 0, counter, 0);
  adevs::Simulator<IO> sim(&top);
  // adevs counts no transitions; as in bench/structure.c, events are the cells'
  // internal transitions and the counter's external ones (one each per instant)
  uint64_t instants = 0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  while (w.changes < w.limit && sim.nextEventTime() < adevs_inf<double>()) {
    sim.execNextEvent();
    instants++;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  uint64_t events = 2 * instants;
  std::printf("bench name=structure sim=adevs n0=%ld changes=%llu events=%llu wall_s=%.6f us_per_change=%.3f "
              "ns_per_event=%.1f final_population=%ld\n",
              n0, (unsigned long long)w.changes, (unsigned long long)events, wall,
              w.changes ? 1e6 * wall / (double)w.changes : 0.0, events ? 1e9 * wall / (double)events : 0.0, w.live);
  return 0;
}
