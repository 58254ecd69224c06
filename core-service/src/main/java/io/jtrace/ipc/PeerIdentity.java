package io.jtrace.ipc;

/**
 * Who is at the other end of a connection, as the operating system reports it ({@code SO_PEERCRED}),
 * never as the peer says.
 *
 * @param user the peer's user name from the socket
 * @param uid the peer's numeric uid, or -1 when it could not be resolved
 * @param pid the peer's pid, or -1: Java's {@code SO_PEERCRED} gives no pid, so a pid is known only when
 *     the peer claimed one ({@code SetPeerIdentity}) and {@code /proc/<pid>} belongs to the peer's user
 */
public record PeerIdentity(String user, int uid, int pid) {}
