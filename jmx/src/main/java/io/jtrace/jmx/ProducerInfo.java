package io.jtrace.jmx;

import java.util.List;

/** A producer connected to the service, with the data sources it offers. */
public record ProducerInfo(int id, String name, int pid, int uid, List<String> dataSources) {
    public ProducerInfo {
        dataSources = List.copyOf(dataSources);
    }
}
