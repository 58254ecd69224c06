/** The system backend (DESIGN §3): one tracing service for many JVMs, on a producer and a consumer socket. */
package io.jtrace.daemon;
