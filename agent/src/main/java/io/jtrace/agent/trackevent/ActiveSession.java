package io.jtrace.agent.trackevent;

import io.jtrace.producer.DataSourceContext;

/** The track_event instance currently running: where writers come from and which categories are on. */
record ActiveSession(DataSourceContext context, CategoryFilter filter) {}
