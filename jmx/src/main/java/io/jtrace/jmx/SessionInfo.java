package io.jtrace.jmx;

import java.util.List;

/**
 * One tracing session, as JMX shows it (a CompositeData).
 *
 * @param name its unique name: what stop, flush and dump take
 * @param id the service's session id
 * @param state {@code STARTED}, {@code STOPPING} or {@code STOPPED}
 * @param mode {@code file} (streamed into its file while tracing) or {@code ring} (kept in memory,
 *     written at its end and by each dump)
 * @param config a one-line summary of its config
 * @param file where its trace goes
 * @param bytesWritten bytes in its file so far
 * @param durationMs when it stops by itself, 0 for never
 * @param dataSources data source instances, as {@code name@producer}
 * @param buffers its trace buffers
 * @param chunksLost chunks its buffers lost ({@link #chunksLost(String, List)}): discarded, and, in file mode,
 *     overwritten before being read; a ring overwriting its oldest chunks is what it is for (its buffers
 *     count those as {@code chunksOverwritten})
 * @param writerPacketLoss places where a writer dropped packets (shared memory full), summed over its buffers:
 *     each place may stand for any number of lost events
 * @param eventsLost track events lost so far (shared memory full, no writer to be had), counted per event by
 *     the agent's track_event source: live while the session runs, the count its trace holds once stopped;
 *     -1 where unknown (a session without track_event)
 * @param error why it ended badly (the file could not be written), empty otherwise
 */
public record SessionInfo(String name, long id, String state, String mode, String config, String file,
                          long bytesWritten, long durationMs, List<String> dataSources, List<BufferInfo> buffers,
                          long chunksLost, long writerPacketLoss, long eventsLost, String error) {
    public SessionInfo {
        dataSources = List.copyOf(dataSources);
        buffers = List.copyOf(buffers);
    }

    /** The chunks lost by a session in {@code mode} with {@code buffers}: see {@link #chunksLost()}. */
    public static long chunksLost(String mode, List<BufferInfo> buffers) {
        boolean ring = "ring".equals(mode);
        long lost = 0;
        for (BufferInfo b : buffers) {
            lost += b.chunksDiscarded() + (ring ? 0 : b.chunksOverwritten());
        }
        return lost;
    }
}
