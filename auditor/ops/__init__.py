"""Operations: schedules, alerts, retention and metrics for unattended audits."""
