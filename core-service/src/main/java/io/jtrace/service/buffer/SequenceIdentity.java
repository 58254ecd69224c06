package io.jtrace.service.buffer;

/** What the service knows, and the producer cannot forge, about where a sequence's packets came from. */
public interface SequenceIdentity {
    /** The trusted_packet_sequence_id for a writer of a producer; unique within the service, never 1 (the service's own). */
    int sequenceId(int producerId, int writerId);

    int pid(int producerId);

    int uid(int producerId);
}
