-- Label Studio and label-audit keep separate databases on the same PostgreSQL server.
CREATE DATABASE label_audit;
