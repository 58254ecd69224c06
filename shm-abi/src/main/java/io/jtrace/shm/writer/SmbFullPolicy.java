package io.jtrace.shm.writer;

/** What a writer does when the SMB has no free chunk (Perfetto's buffer_exhausted_policy). */
public enum SmbFullPolicy {
    /** Drop the packet at once and report the loss on the next packet. The default: never delays the caller. */
    DROP,
    /**
     * Wait for the commit thread to free chunks, with bounded back-off ({@link TraceWriter#STALL_LIMIT_NANOS}),
     * then drop. For sources that would rather slow their thread than lose data.
     */
    STALL_THEN_DROP
}
