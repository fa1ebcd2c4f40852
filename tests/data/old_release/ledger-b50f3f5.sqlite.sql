PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE audit_results (
	id INTEGER NOT NULL, 
	project VARCHAR(255) NOT NULL, 
	task_id VARCHAR(255) NOT NULL, 
	model_version VARCHAR(255) NOT NULL, 
	original VARCHAR(255), 
	prediction VARCHAR(255), 
	confidence FLOAT, 
	flagged BOOLEAN NOT NULL, 
	error TEXT, 
	suspicious_text BOOLEAN NOT NULL, 
	result_json TEXT NOT NULL, 
	updated_at DATETIME NOT NULL, 
	imported_at DATETIME, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_audit_results_key UNIQUE (project, task_id, model_version)
);
INSERT INTO audit_results VALUES(1,'7','1','label-audit-oldrelease1','0','1',0.8000000000000000444,1,NULL,0,'{"id": "1", "original": "0", "prediction": "1", "confidence": 0.8, "probs": {"0": 0.2, "1": 0.8}, "flagged": true, "line": null, "suspicious_text": false, "insufficient": false, "stopped_early": false, "data": {"text": "item 1"}, "input_hash": "hash0000000000000001", "error": null, "error_detail": null, "error_retryable": false, "members": [{"member_id": "openai:smol/fc-premise-hypothesis@v1", "probs": {"0": 0.2, "1": 0.8}, "raw_mass": null, "method": null, "cached": false, "latency_s": 0.4, "usage": null, "error": null, "error_detail": null, "error_retryable": false}]}','2026-12-01 20:35:02.424439',NULL);
INSERT INTO audit_results VALUES(2,'7','2','label-audit-oldrelease1','0','1',0.8000000000000000444,1,NULL,0,'{"id": "2", "original": "0", "prediction": "1", "confidence": 0.8, "probs": {"0": 0.2, "1": 0.8}, "flagged": true, "line": null, "suspicious_text": false, "insufficient": false, "stopped_early": false, "data": {"text": "item 2"}, "input_hash": "hash0000000000000002", "error": null, "error_detail": null, "error_retryable": false, "members": [{"member_id": "openai:smol/fc-premise-hypothesis@v1", "probs": {"0": 0.2, "1": 0.8}, "raw_mass": null, "method": null, "cached": false, "latency_s": 0.4, "usage": null, "error": null, "error_detail": null, "error_retryable": false}]}','2026-12-01 20:35:02.424439',NULL);
INSERT INTO audit_results VALUES(3,'7','3','label-audit-oldrelease1','0','1',0.8000000000000000444,1,NULL,0,'{"id": "3", "original": "0", "prediction": "1", "confidence": 0.8, "probs": {"0": 0.2, "1": 0.8}, "flagged": true, "line": null, "suspicious_text": false, "insufficient": false, "stopped_early": false, "data": {"text": "item 3"}, "input_hash": null, "error": null, "error_detail": null, "error_retryable": false, "members": [{"member_id": "openai:smol/fc-premise-hypothesis@v1", "probs": {"0": 0.2, "1": 0.8}, "raw_mass": null, "method": null, "cached": false, "latency_s": 0.4, "usage": null, "error": null, "error_detail": null, "error_retryable": false}]}','2026-12-01 20:35:02.424439',NULL);
CREATE TABLE audit_members (
	id INTEGER NOT NULL, 
	project VARCHAR(255) NOT NULL, 
	task_id VARCHAR(255) NOT NULL, 
	model_version VARCHAR(255) NOT NULL, 
	member_id VARCHAR(255) NOT NULL, 
	probs_json TEXT, 
	raw_mass FLOAT, 
	method VARCHAR(64), 
	error VARCHAR(255), 
	error_detail TEXT, 
	cached BOOLEAN NOT NULL, 
	latency_s FLOAT, 
	cost_usd FLOAT, 
	updated_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_audit_members_key UNIQUE (project, task_id, model_version, member_id)
);
INSERT INTO audit_members VALUES(1,'7','1','label-audit-oldrelease1','openai:smol/fc-premise-hypothesis@v1','{"0": 0.2, "1": 0.8}',NULL,NULL,NULL,NULL,0,0.4000000000000000222,NULL,'2026-12-01 20:35:02.424439');
INSERT INTO audit_members VALUES(2,'7','2','label-audit-oldrelease1','openai:smol/fc-premise-hypothesis@v1','{"0": 0.2, "1": 0.8}',NULL,NULL,NULL,NULL,0,0.4000000000000000222,NULL,'2026-12-01 20:35:02.424439');
INSERT INTO audit_members VALUES(3,'7','3','label-audit-oldrelease1','openai:smol/fc-premise-hypothesis@v1','{"0": 0.2, "1": 0.8}',NULL,NULL,NULL,NULL,0,0.4000000000000000222,NULL,'2026-12-01 20:35:02.424439');
CREATE TABLE audit_crowd_labels (
	id INTEGER NOT NULL, 
	project VARCHAR(255) NOT NULL, 
	task_id VARCHAR(255) NOT NULL, 
	annotation_id VARCHAR(255) NOT NULL, 
	annotator VARCHAR(255), 
	label VARCHAR(255), 
	updated_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_audit_crowd_key UNIQUE (project, task_id, annotation_id)
);
INSERT INTO audit_crowd_labels VALUES(1,'7','1','100','11','0','2026-12-01 20:35:02.436348');
INSERT INTO audit_crowd_labels VALUES(2,'7','2','101','11','0','2026-12-01 20:35:02.436348');
CREATE TABLE audit_jobs (
	job_key VARCHAR(255) NOT NULL, 
	project VARCHAR(255) NOT NULL, 
	model_version VARCHAR(255) NOT NULL, 
	n_tasks INTEGER NOT NULL, 
	status VARCHAR(32) NOT NULL, 
	attempts INTEGER NOT NULL, 
	n_scored INTEGER NOT NULL, 
	n_errors INTEGER NOT NULL, 
	error TEXT, 
	updated_at DATETIME NOT NULL, 
	PRIMARY KEY (job_key)
);
INSERT INTO audit_jobs VALUES('la-7-old','7','label-audit-oldrelease1',3,'finished',1,3,0,NULL,'2026-12-01 20:35:02.487247');
CREATE TABLE audit_projects (
	project VARCHAR(255) NOT NULL, 
	label_config TEXT, 
	label_field VARCHAR(255), 
	updated_at DATETIME NOT NULL, 
	PRIMARY KEY (project)
);
INSERT INTO audit_projects VALUES('7','<View><Text name=''text'' value=''$text''/></View>',NULL,'2026-12-01 20:35:02.487800');
CREATE TABLE llm_call_cache (
	"key" VARCHAR(64) NOT NULL, 
	provider VARCHAR(64) NOT NULL, 
	model VARCHAR(255) NOT NULL, 
	template_id VARCHAR(128) NOT NULL, 
	template_version VARCHAR(16) NOT NULL, 
	distribution TEXT NOT NULL, 
	latency_s FLOAT, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY ("key")
);
INSERT INTO llm_call_cache VALUES('kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk','openai','smol','fc-premise-hypothesis','1','{"method": "logprobs", "probs": {"0": 0.2, "1": 0.8}, "raw_mass": 0.9, "text": null, "usage": {}}',0.4000000000000000222,'2026-12-01 20:35:02.498503');
CREATE TABLE review_sample_strata (
	id INTEGER NOT NULL, 
	source_project VARCHAR(255) NOT NULL, 
	stratum VARCHAR(255) NOT NULL, 
	design VARCHAR(32) NOT NULL, 
	seed INTEGER NOT NULL, 
	population INTEGER NOT NULL, 
	sample INTEGER NOT NULL, 
	drawn_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_review_sample_strata UNIQUE (source_project, stratum)
);
INSERT INTO review_sample_strata VALUES(1,'7','flagged','random',1,3,1,'2026-12-01 20:35:02.499346');
CREATE TABLE review_sample_items (
	id INTEGER NOT NULL, 
	source_project VARCHAR(255) NOT NULL, 
	task_id VARCHAR(255) NOT NULL, 
	stratum VARCHAR(255) NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_review_sample_items UNIQUE (source_project, task_id)
);
CREATE TABLE review_projects (
	id INTEGER NOT NULL, 
	source_project VARCHAR(255) NOT NULL, 
	round INTEGER NOT NULL, 
	expert VARCHAR(255) NOT NULL, 
	expert_index INTEGER, 
	expert_user_id INTEGER, 
	ls_project_id INTEGER NOT NULL, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_review_projects_key UNIQUE (source_project, round, expert)
);
CREATE TABLE review_items (
	id INTEGER NOT NULL, 
	source_project VARCHAR(255) NOT NULL, 
	task_id VARCHAR(255) NOT NULL, 
	rank INTEGER NOT NULL, 
	original VARCHAR(255), 
	prediction VARCHAR(255), 
	confidence FLOAT, 
	model_version VARCHAR(255), 
	pushed_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_review_items_key UNIQUE (source_project, task_id)
);
INSERT INTO review_items VALUES(1,'7','1',0,'0','1',0.8000000000000000444,'label-audit-oldrelease1','2026-12-01 20:35:02.499346');
CREATE TABLE review_assignments (
	ref VARCHAR(64) NOT NULL, 
	source_project VARCHAR(255) NOT NULL, 
	task_id VARCHAR(255) NOT NULL, 
	round INTEGER NOT NULL, 
	expert VARCHAR(255) NOT NULL, 
	ls_project_id INTEGER NOT NULL, 
	ls_task_id INTEGER, 
	created_at DATETIME NOT NULL, 
	PRIMARY KEY (ref), 
	CONSTRAINT uq_review_assignments_key UNIQUE (source_project, task_id, round, expert)
);
CREATE TABLE review_answers (
	id INTEGER NOT NULL, 
	ref VARCHAR(64) NOT NULL, 
	source_project VARCHAR(255) NOT NULL, 
	task_id VARCHAR(255) NOT NULL, 
	round INTEGER NOT NULL, 
	expert VARCHAR(255) NOT NULL, 
	annotation_id INTEGER NOT NULL, 
	label VARCHAR(255), 
	updated_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_review_answers_key UNIQUE (ref, annotation_id)
);
CREATE TABLE review_gold_labels (
	id INTEGER NOT NULL, 
	source_project VARCHAR(255) NOT NULL, 
	task_id VARCHAR(255) NOT NULL, 
	original VARCHAR(255), 
	prediction VARCHAR(255), 
	confidence FLOAT, 
	gold VARCHAR(255), 
	decided_by VARCHAR(32), 
	status VARCHAR(32) NOT NULL, 
	updated_at DATETIME NOT NULL, 
	PRIMARY KEY (id), 
	CONSTRAINT uq_review_gold_key UNIQUE (source_project, task_id)
);
INSERT INTO review_gold_labels VALUES(1,'7','1','0','1',0.8000000000000000444,'1','experts_round1','final','2026-12-01 20:35:02.499346');
CREATE TABLE probe_results (
	id INTEGER NOT NULL, 
	run_id VARCHAR(32) NOT NULL, 
	created_at DATETIME NOT NULL, 
	task VARCHAR(128) NOT NULL, 
	member_id VARCHAR(255) NOT NULL, 
	condition VARCHAR(64) NOT NULL, 
	delimit BOOLEAN NOT NULL, 
	n INTEGER NOT NULL, 
	n_ok INTEGER NOT NULL, 
	n_errors INTEGER NOT NULL, 
	mae FLOAT, 
	share_positive FLOAT, 
	mean_p_positive FLOAT, 
	delta_mae FLOAT, 
	delta_share_positive FLOAT, 
	delta_p_positive FLOAT, 
	row_json TEXT NOT NULL, 
	PRIMARY KEY (id)
);
INSERT INTO probe_results VALUES(1,'r1','2026-12-01 20:35:02.499346','factual-consistency','openai:smol/fc-premise-hypothesis@v1','planted',1,3,3,0,0.10000000000000000555,NULL,NULL,NULL,NULL,NULL,'{"condition": "planted", "mae": 0.1, "member_id": "openai:smol/fc-premise-hypothesis@v1", "n": 3, "n_errors": 0, "n_ok": 3}');
CREATE INDEX ix_audit_results_project ON audit_results (project);
CREATE INDEX ix_audit_members_project ON audit_members (project);
CREATE INDEX ix_audit_crowd_labels_project ON audit_crowd_labels (project);
CREATE INDEX ix_audit_jobs_project ON audit_jobs (project);
CREATE INDEX ix_review_sample_strata_source_project ON review_sample_strata (source_project);
CREATE INDEX ix_review_sample_items_source_project ON review_sample_items (source_project);
CREATE INDEX ix_review_projects_source_project ON review_projects (source_project);
CREATE INDEX ix_review_items_source_project ON review_items (source_project);
CREATE INDEX ix_review_assignments_ls_project_id ON review_assignments (ls_project_id);
CREATE INDEX ix_review_assignments_source_project ON review_assignments (source_project);
CREATE INDEX ix_review_answers_source_project ON review_answers (source_project);
CREATE INDEX ix_review_answers_ref ON review_answers (ref);
CREATE INDEX ix_review_gold_labels_source_project ON review_gold_labels (source_project);
CREATE INDEX ix_probe_results_member_condition_time ON probe_results (member_id, condition, created_at);
COMMIT;
