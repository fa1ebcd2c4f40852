-- Label Studio and label-audit keep separate databases on the same PostgreSQL server.
CREATE DATABASE label_audit;
-- The review instance (a second Label Studio) keeps its own database: no table is shared with the source.
CREATE DATABASE labelstudio_review;
