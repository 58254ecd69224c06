package io.jtrace.shm.writer;

/**
 * Where a producer's commits go: the service's producer endpoint, by direct call when embedded or
 * through IPC otherwise. Called only from the producer's commit thread, in order.
 */
public interface CommitSink {
    void commit(CommitRequest request);

    /** Every chunk released before the flush with this id was requested has been committed. */
    void flushComplete(long requestId);

    /** A service in this process that writers may hand chunks to directly, or null (the usual case). */
    default ChunkPromoter promoter() {
        return null;
    }
}
