package io.jtrace.shm.writer;

/**
 * A service in this process that may take a writer's complete chunk straight into its output on the
 * writer's own thread, instead of through the commit thread (see {@link CommitSink#promoter()}).
 */
public interface ChunkPromoter {
    /** {@link #tryPromote}: the chunk's packets are in the output and the chunk is FREE. */
    int PROMOTED = 0;
    /** {@link #tryPromote}: the chunk goes to the commit thread, as every chunk of a writer without promotion. */
    int QUEUE = 1;
    /**
     * {@link #tryPromote}: the writer may promote its chunks, but not this one yet: earlier chunks of
     * the writer are still on their way through the service. Asking again once the service has them
     * may succeed; until then the chunk must not be queued behind them by anything but the writer.
     */
    int BEHIND = 2;

    /**
     * Writer thread, right after it released the chunk as COMPLETE, for every chunk it releases: one of
     * {@link #PROMOTED}, {@link #QUEUE}, {@link #BEHIND}; nothing happened unless PROMOTED. Never waits.
     * Asked for each chunk, not only for those that could be promoted: a chunk that bypassed the
     * promoter could be overtaken by a later one it promotes.
     */
    int tryPromote(int writerId, int page, int index, int targetBuffer, int payloadEnd, int sequenceId);
}
