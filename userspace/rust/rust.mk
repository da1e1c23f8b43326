# SPDX-License-Identifier: GPL-2.0
#
# userspace/rust/rust.mk - the Rust binding (crate twheel, std only).
# Included at the end of the top-level Makefile; make runs at the
# repository root, every output goes under build/rust/.
#
#   make rust         the crate and its example (build/rust/debug/)
#   make rust-test    host tests (unit, the crate against the C header, doc
#                     tests), then the device tests and the example, built
#                     static, in the stock kernel's VM (tests/rust/run.sh;
#                     `tests/rust/run.sh debug` for the debug kernel)
#
# The tokio binding, userspace/rust/tokio/ (crate twheel-tokio: AsyncFd
# futures of records and idle expiries), is a crate of its own, built
# offline against Debian's librust-tokio-dev (its .cargo/config.toml);
# tests/rust/run.sh tests it when those sources are installed.
#
# No network: cargo --offline --locked, no dependencies. Cargo is $(CARGO):
# cargo from PATH (Debian 12: apt-get install cargo; its rustc 1.63 is
# enough), else rustup's ~/.cargo/bin/cargo.

RUST_CRATE	:= userspace/rust
RUST_OUT	:= $(or $(BUILD),build)/rust
CARGO		?= $(or $(shell command -v cargo 2>/dev/null),$(wildcard $(HOME)/.cargo/bin/cargo),cargo)
RUST_CARGO_FLAGS := --offline --locked --manifest-path $(RUST_CRATE)/Cargo.toml \
		   --target-dir $(RUST_OUT)

.PHONY: rust rust-test

rust:
	$(CARGO) build $(RUST_CARGO_FLAGS) --lib --examples

rust-test:
	CARGO=$(CARGO) tests/rust/run.sh host
	CARGO=$(CARGO) tests/rust/run.sh stock
