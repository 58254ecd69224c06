package io.jtrace.shm.proto;

/**
 * The memory behind a {@link ProtoWriter}: a chunk of the SMB for a trace writer.
 */
public interface SpaceProvider {
    /**
     * The writer needs {@code needed} contiguous bytes and has fewer before its limit. The provider
     * must leave at least that many, typically by ending the current fragment and continuing in a new
     * chunk ({@link ProtoWriter#continueIn}) or by diverting the rest of the packet to scratch memory
     * ({@link ProtoWriter#discardInto}). {@code needed} is never more than a few dozen bytes: long
     * strings and byte arrays are written in pieces.
     */
    void makeRoom(ProtoWriter writer, int needed);

    /**
     * A nested message at {@code level} ended with {@code size} bytes, but its size field lies in an
     * earlier fragment, already handed over: the provider must deliver the value as a patch.
     */
    void patchSize(ProtoWriter writer, int level, int size);
}
