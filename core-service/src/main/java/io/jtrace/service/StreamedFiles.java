package io.jtrace.service;

import io.jtrace.service.buffer.PacketSink;

/** What the chunk mover needs of the sessions that stream into a file ({@link SessionOutput}). */
interface StreamedFiles {
    /** Writes {@code session}'s readable chunks into its file, making room in its buffers. */
    void drainIntoFile(TracingSession session);

    /** The file a chunk of {@code session} may be read straight into now, or null if it takes no more. */
    PacketSink writableFile(TracingSession session);

    /** Packets went straight into {@link #writableFile}: its limits are checked as after a drain. */
    void wrote(TracingSession session);

    /** Writing {@link #writableFile} failed: the session stops, as when a drain fails. */
    void failed(TracingSession session, Exception e);
}
