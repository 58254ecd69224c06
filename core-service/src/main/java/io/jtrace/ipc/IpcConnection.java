package io.jtrace.ipc;

/** One accepted connection, as a bound service sees it. */
public interface IpcConnection {
    /** Unique per host for the host's lifetime. */
    long id();

    /** Who the socket says the peer is; fixed once the connection's first frame was handled. */
    PeerIdentity peer();

    /** Closes the connection; every service bound on it is told through {@link ServiceBinding#unbound()}. */
    void close(String reason);
}
