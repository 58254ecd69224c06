/**
 * Perfetto's IPC over UNIX sockets (DESIGN §9): frames of a 4-byte little-endian length and an
 * {@code IPCFrame}, services bound by name, methods called by id, replies streamed with
 * {@code has_more}. {@link io.jtrace.ipc.IpcHost} serves {@link io.jtrace.ipc.IpcServiceDefinition}s;
 * {@link io.jtrace.ipc.IpcClient} calls them. Only control travels here, never trace data.
 */
package io.jtrace.ipc;
