package io.jtrace.service.buffer;

/** What the service knows, and the producer cannot forge, about where a sequence's packets came from. */
public interface SequenceIdentity {
    /** The trusted_packet_sequence_id for a writer of a producer; unique within the service, never 1 (the service's own). */
    int sequenceId(int producerId, int writerId);

    int pid(int producerId);

    int uid(int producerId);

    /**
     * Whether the producer runs in the service's own JVM (the agent's data sources, connected without
     * IPC): its packets are the agent's own code's output, so they are not validated and not searched
     * for track descriptors on their way out (DESIGN §4, "trusted in-process producers").
     */
    boolean trusted(int producerId);
}
