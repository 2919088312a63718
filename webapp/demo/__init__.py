"""Made-up tournaments: the demo venue `listok serve --demo` seeds (seed), and the engine's
simulated play (simulate, simulate_rulesets) that the demo, the tests and the benchmarks
build on. The simulations import only the rules engine; seed needs the app."""
