// Cooperative cancellation: SIGINT/SIGTERM/SIGHUP set a flag that the engine and the generator tools
// poll between chunks, so a stopped run unwinds normally (scratch removed, no partial output) instead
// of dying mid-write. In io/ because every layer's tools share it (utils/ depends on io/ only).
#pragma once

namespace edgestream {

/// Installs SIGINT, SIGTERM and SIGHUP handlers that request cancellation. Call once, from main().
void install_cancellation_handlers();
/// True once a signal asked the run to stop.
bool cancel_requested();
/// The signal that asked (0 when none).
int cancel_signal();
/// For tests: request (signal > 0) or clear (0) cancellation.
void set_cancel_signal_for_testing(int signal);

}  // namespace edgestream
