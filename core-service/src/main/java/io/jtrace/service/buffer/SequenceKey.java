package io.jtrace.service.buffer;

/** A writer's sequence: the (producer, writer) pair that orders its chunks. */
record SequenceKey(int producerId, int writerId) {}
