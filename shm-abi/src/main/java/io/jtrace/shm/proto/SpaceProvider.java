package io.jtrace.shm.proto;

/**
 * Called by a {@link ProtoWriter} that has fewer than the bytes it needs left before its limit. The
 * provider must leave the writer with at least {@code needed} bytes between its position and limit,
 * moving it (with {@link ProtoWriter#moveTo}) to other memory if it has to.
 */
public interface SpaceProvider {
    void makeRoom(ProtoWriter writer, int needed);
}
