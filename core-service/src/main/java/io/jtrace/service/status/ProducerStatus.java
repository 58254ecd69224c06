package io.jtrace.service.status;

import java.util.List;

/** A connected producer and the data sources it registered. */
public record ProducerStatus(int id, String name, int pid, int uid, List<String> dataSources) {
    public ProducerStatus {
        dataSources = List.copyOf(dataSources);
    }
}
