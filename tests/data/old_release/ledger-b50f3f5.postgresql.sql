--
-- PostgreSQL database dump
--

\restrict 5BC3Xd4tgLfhhJEstaRXwKygf3bnAM3LqYjCgDGaIBtdX29XMbX5Zwjo0iODSJf

-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: audit_crowd_labels; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_crowd_labels (
    id integer NOT NULL,
    project character varying(255) NOT NULL,
    task_id character varying(255) NOT NULL,
    annotation_id character varying(255) NOT NULL,
    annotator character varying(255),
    label character varying(255),
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: audit_crowd_labels_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.audit_crowd_labels_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: audit_crowd_labels_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.audit_crowd_labels_id_seq OWNED BY public.audit_crowd_labels.id;


--
-- Name: audit_jobs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_jobs (
    job_key character varying(255) NOT NULL,
    project character varying(255) NOT NULL,
    model_version character varying(255) NOT NULL,
    n_tasks integer NOT NULL,
    status character varying(32) NOT NULL,
    attempts integer NOT NULL,
    n_scored integer NOT NULL,
    n_errors integer NOT NULL,
    error text,
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: audit_members; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_members (
    id integer NOT NULL,
    project character varying(255) NOT NULL,
    task_id character varying(255) NOT NULL,
    model_version character varying(255) NOT NULL,
    member_id character varying(255) NOT NULL,
    probs_json text,
    raw_mass double precision,
    method character varying(64),
    error character varying(255),
    error_detail text,
    cached boolean NOT NULL,
    latency_s double precision,
    cost_usd double precision,
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: audit_members_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.audit_members_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: audit_members_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.audit_members_id_seq OWNED BY public.audit_members.id;


--
-- Name: audit_projects; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_projects (
    project character varying(255) NOT NULL,
    label_config text,
    label_field character varying(255),
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: audit_results; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_results (
    id integer NOT NULL,
    project character varying(255) NOT NULL,
    task_id character varying(255) NOT NULL,
    model_version character varying(255) NOT NULL,
    original character varying(255),
    prediction character varying(255),
    confidence double precision,
    flagged boolean NOT NULL,
    error text,
    suspicious_text boolean NOT NULL,
    result_json text NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    imported_at timestamp with time zone
);


--
-- Name: audit_results_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.audit_results_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: audit_results_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.audit_results_id_seq OWNED BY public.audit_results.id;


--
-- Name: llm_call_cache; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.llm_call_cache (
    key character varying(64) NOT NULL,
    provider character varying(64) NOT NULL,
    model character varying(255) NOT NULL,
    template_id character varying(128) NOT NULL,
    template_version character varying(16) NOT NULL,
    distribution text NOT NULL,
    latency_s double precision,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: probe_results; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.probe_results (
    id integer NOT NULL,
    run_id character varying(32) NOT NULL,
    created_at timestamp with time zone NOT NULL,
    task character varying(128) NOT NULL,
    member_id character varying(255) NOT NULL,
    condition character varying(64) NOT NULL,
    delimit boolean NOT NULL,
    n integer NOT NULL,
    n_ok integer NOT NULL,
    n_errors integer NOT NULL,
    mae double precision,
    share_positive double precision,
    mean_p_positive double precision,
    delta_mae double precision,
    delta_share_positive double precision,
    delta_p_positive double precision,
    row_json text NOT NULL
);


--
-- Name: probe_results_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.probe_results_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: probe_results_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.probe_results_id_seq OWNED BY public.probe_results.id;


--
-- Name: review_answers; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.review_answers (
    id integer NOT NULL,
    ref character varying(64) NOT NULL,
    source_project character varying(255) NOT NULL,
    task_id character varying(255) NOT NULL,
    round integer NOT NULL,
    expert character varying(255) NOT NULL,
    annotation_id integer NOT NULL,
    label character varying(255),
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: review_answers_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.review_answers_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: review_answers_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.review_answers_id_seq OWNED BY public.review_answers.id;


--
-- Name: review_assignments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.review_assignments (
    ref character varying(64) NOT NULL,
    source_project character varying(255) NOT NULL,
    task_id character varying(255) NOT NULL,
    round integer NOT NULL,
    expert character varying(255) NOT NULL,
    ls_project_id integer NOT NULL,
    ls_task_id integer,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: review_gold_labels; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.review_gold_labels (
    id integer NOT NULL,
    source_project character varying(255) NOT NULL,
    task_id character varying(255) NOT NULL,
    original character varying(255),
    prediction character varying(255),
    confidence double precision,
    gold character varying(255),
    decided_by character varying(32),
    status character varying(32) NOT NULL,
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: review_gold_labels_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.review_gold_labels_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: review_gold_labels_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.review_gold_labels_id_seq OWNED BY public.review_gold_labels.id;


--
-- Name: review_items; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.review_items (
    id integer NOT NULL,
    source_project character varying(255) NOT NULL,
    task_id character varying(255) NOT NULL,
    rank integer NOT NULL,
    original character varying(255),
    prediction character varying(255),
    confidence double precision,
    model_version character varying(255),
    pushed_at timestamp with time zone NOT NULL
);


--
-- Name: review_items_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.review_items_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: review_items_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.review_items_id_seq OWNED BY public.review_items.id;


--
-- Name: review_projects; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.review_projects (
    id integer NOT NULL,
    source_project character varying(255) NOT NULL,
    round integer NOT NULL,
    expert character varying(255) NOT NULL,
    expert_index integer,
    expert_user_id integer,
    ls_project_id integer NOT NULL,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: review_projects_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.review_projects_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: review_projects_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.review_projects_id_seq OWNED BY public.review_projects.id;


--
-- Name: review_sample_items; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.review_sample_items (
    id integer NOT NULL,
    source_project character varying(255) NOT NULL,
    task_id character varying(255) NOT NULL,
    stratum character varying(255) NOT NULL
);


--
-- Name: review_sample_items_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.review_sample_items_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: review_sample_items_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.review_sample_items_id_seq OWNED BY public.review_sample_items.id;


--
-- Name: review_sample_strata; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.review_sample_strata (
    id integer NOT NULL,
    source_project character varying(255) NOT NULL,
    stratum character varying(255) NOT NULL,
    design character varying(32) NOT NULL,
    seed integer NOT NULL,
    population integer NOT NULL,
    sample integer NOT NULL,
    drawn_at timestamp with time zone NOT NULL
);


--
-- Name: review_sample_strata_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.review_sample_strata_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: review_sample_strata_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.review_sample_strata_id_seq OWNED BY public.review_sample_strata.id;


--
-- Name: audit_crowd_labels id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_crowd_labels ALTER COLUMN id SET DEFAULT nextval('public.audit_crowd_labels_id_seq'::regclass);


--
-- Name: audit_members id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_members ALTER COLUMN id SET DEFAULT nextval('public.audit_members_id_seq'::regclass);


--
-- Name: audit_results id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_results ALTER COLUMN id SET DEFAULT nextval('public.audit_results_id_seq'::regclass);


--
-- Name: probe_results id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.probe_results ALTER COLUMN id SET DEFAULT nextval('public.probe_results_id_seq'::regclass);


--
-- Name: review_answers id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.review_answers ALTER COLUMN id SET DEFAULT nextval('public.review_answers_id_seq'::regclass);


--
-- Name: review_gold_labels id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.review_gold_labels ALTER COLUMN id SET DEFAULT nextval('public.review_gold_labels_id_seq'::regclass);


--
-- Name: review_items id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.review_items ALTER COLUMN id SET DEFAULT nextval('public.review_items_id_seq'::regclass);


--
-- Name: review_projects id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.review_projects ALTER COLUMN id SET DEFAULT nextval('public.review_projects_id_seq'::regclass);


--
-- Name: review_sample_items id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.review_sample_items ALTER COLUMN id SET DEFAULT nextval('public.review_sample_items_id_seq'::regclass);


--
-- Name: review_sample_strata id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.review_sample_strata ALTER COLUMN id SET DEFAULT nextval('public.review_sample_strata_id_seq'::regclass);


--
-- Data for Name: audit_crowd_labels; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.audit_crowd_labels VALUES (1, '7', '1', '100', '11', '0', '2026-12-01 20:35:05.473187+00');
INSERT INTO public.audit_crowd_labels VALUES (2, '7', '2', '101', '11', '0', '2026-12-01 20:35:05.473187+00');


--
-- Data for Name: audit_jobs; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.audit_jobs VALUES ('la-7-old', '7', 'label-audit-oldrelease1', 3, 'finished', 1, 3, 0, NULL, '2026-12-01 20:35:05.517949+00');


--
-- Data for Name: audit_members; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.audit_members VALUES (1, '7', '1', 'label-audit-oldrelease1', 'openai:smol/fc-premise-hypothesis@v1', '{"0": 0.2, "1": 0.8}', NULL, NULL, NULL, NULL, false, 0.4, NULL, '2026-12-01 20:35:05.430001+00');
INSERT INTO public.audit_members VALUES (2, '7', '2', 'label-audit-oldrelease1', 'openai:smol/fc-premise-hypothesis@v1', '{"0": 0.2, "1": 0.8}', NULL, NULL, NULL, NULL, false, 0.4, NULL, '2026-12-01 20:35:05.430001+00');
INSERT INTO public.audit_members VALUES (3, '7', '3', 'label-audit-oldrelease1', 'openai:smol/fc-premise-hypothesis@v1', '{"0": 0.2, "1": 0.8}', NULL, NULL, NULL, NULL, false, 0.4, NULL, '2026-12-01 20:35:05.430001+00');


--
-- Data for Name: audit_projects; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.audit_projects VALUES ('7', '<View><Text name=''text'' value=''$text''/></View>', NULL, '2026-12-01 20:35:05.529888+00');


--
-- Data for Name: audit_results; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.audit_results VALUES (1, '7', '1', 'label-audit-oldrelease1', '0', '1', 0.8, true, NULL, false, '{"id": "1", "original": "0", "prediction": "1", "confidence": 0.8, "probs": {"0": 0.2, "1": 0.8}, "flagged": true, "line": null, "suspicious_text": false, "insufficient": false, "stopped_early": false, "data": {"text": "item 1"}, "input_hash": "hash0000000000000001", "error": null, "error_detail": null, "error_retryable": false, "members": [{"member_id": "openai:smol/fc-premise-hypothesis@v1", "probs": {"0": 0.2, "1": 0.8}, "raw_mass": null, "method": null, "cached": false, "latency_s": 0.4, "usage": null, "error": null, "error_detail": null, "error_retryable": false}]}', '2026-12-01 20:35:05.430001+00', NULL);
INSERT INTO public.audit_results VALUES (2, '7', '2', 'label-audit-oldrelease1', '0', '1', 0.8, true, NULL, false, '{"id": "2", "original": "0", "prediction": "1", "confidence": 0.8, "probs": {"0": 0.2, "1": 0.8}, "flagged": true, "line": null, "suspicious_text": false, "insufficient": false, "stopped_early": false, "data": {"text": "item 2"}, "input_hash": "hash0000000000000002", "error": null, "error_detail": null, "error_retryable": false, "members": [{"member_id": "openai:smol/fc-premise-hypothesis@v1", "probs": {"0": 0.2, "1": 0.8}, "raw_mass": null, "method": null, "cached": false, "latency_s": 0.4, "usage": null, "error": null, "error_detail": null, "error_retryable": false}]}', '2026-12-01 20:35:05.430001+00', NULL);
INSERT INTO public.audit_results VALUES (3, '7', '3', 'label-audit-oldrelease1', '0', '1', 0.8, true, NULL, false, '{"id": "3", "original": "0", "prediction": "1", "confidence": 0.8, "probs": {"0": 0.2, "1": 0.8}, "flagged": true, "line": null, "suspicious_text": false, "insufficient": false, "stopped_early": false, "data": {"text": "item 3"}, "input_hash": null, "error": null, "error_detail": null, "error_retryable": false, "members": [{"member_id": "openai:smol/fc-premise-hypothesis@v1", "probs": {"0": 0.2, "1": 0.8}, "raw_mass": null, "method": null, "cached": false, "latency_s": 0.4, "usage": null, "error": null, "error_detail": null, "error_retryable": false}]}', '2026-12-01 20:35:05.430001+00', NULL);


--
-- Data for Name: llm_call_cache; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.llm_call_cache VALUES ('kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk', 'openai', 'smol', 'fc-premise-hypothesis', '1', '{"method": "logprobs", "probs": {"0": 0.2, "1": 0.8}, "raw_mass": 0.9, "text": null, "usage": {}}', 0.4, '2026-12-01 20:35:05.674467+00');


--
-- Data for Name: probe_results; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.probe_results VALUES (1, 'r1', '2026-12-01 20:35:05.687999+00', 'factual-consistency', 'openai:smol/fc-premise-hypothesis@v1', 'planted', true, 3, 3, 0, 0.1, NULL, NULL, NULL, NULL, NULL, '{"condition": "planted", "mae": 0.1, "member_id": "openai:smol/fc-premise-hypothesis@v1", "n": 3, "n_errors": 0, "n_ok": 3}');


--
-- Data for Name: review_answers; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: review_assignments; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: review_gold_labels; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.review_gold_labels VALUES (1, '7', '1', '0', '1', 0.8, '1', 'experts_round1', 'final', '2026-12-01 20:35:05.687999+00');


--
-- Data for Name: review_items; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.review_items VALUES (1, '7', '1', 0, '0', '1', 0.8, 'label-audit-oldrelease1', '2026-12-01 20:35:05.687999+00');


--
-- Data for Name: review_projects; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: review_sample_items; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: review_sample_strata; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.review_sample_strata VALUES (1, '7', 'flagged', 'random', 1, 3, 1, '2026-12-01 20:35:05.687999+00');


--
-- Name: audit_crowd_labels_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.audit_crowd_labels_id_seq', 2, true);


--
-- Name: audit_members_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.audit_members_id_seq', 3, true);


--
-- Name: audit_results_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.audit_results_id_seq', 3, true);


--
-- Name: probe_results_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.probe_results_id_seq', 1, true);


--
-- Name: review_answers_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.review_answers_id_seq', 1, false);


--
-- Name: review_gold_labels_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.review_gold_labels_id_seq', 1, true);


--
-- Name: review_items_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.review_items_id_seq', 1, true);


--
-- Name: review_projects_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.review_projects_id_seq', 1, false);


--
-- Name: review_sample_items_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.review_sample_items_id_seq', 1, false);


--
-- Name: review_sample_strata_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.review_sample_strata_id_seq', 1, true);


--
-- Name: audit_crowd_labels audit_crowd_labels_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_crowd_labels
    ADD CONSTRAINT audit_crowd_labels_pkey PRIMARY KEY (id);


--
-- Name: audit_jobs audit_jobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_jobs
    ADD CONSTRAINT audit_jobs_pkey PRIMARY KEY (job_key);


--
-- Name: audit_members audit_members_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_members
    ADD CONSTRAINT audit_members_pkey PRIMARY KEY (id);


--
-- Name: audit_projects audit_projects_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_projects
    ADD CONSTRAINT audit_projects_pkey PRIMARY KEY (project);


--
-- Name: audit_results audit_results_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_results
    ADD CONSTRAINT audit_results_pkey PRIMARY KEY (id);


--
-- Name: llm_call_cache llm_call_cache_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.llm_call_cache
    ADD CONSTRAINT llm_call_cache_pkey PRIMARY KEY (key);


--
-- Name: probe_results probe_results_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.probe_results
    ADD CONSTRAINT probe_results_pkey PRIMARY KEY (id);


--
-- Name: review_answers review_answers_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.review_answers
    ADD CONSTRAINT review_answers_pkey PRIMARY KEY (id);


--
-- Name: review_assignments review_assignments_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.review_assignments
    ADD CONSTRAINT review_assignments_pkey PRIMARY KEY (ref);


--
-- Name: review_gold_labels review_gold_labels_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.review_gold_labels
    ADD CONSTRAINT review_gold_labels_pkey PRIMARY KEY (id);


--
-- Name: review_items review_items_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.review_items
    ADD CONSTRAINT review_items_pkey PRIMARY KEY (id);


--
-- Name: review_projects review_projects_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.review_projects
    ADD CONSTRAINT review_projects_pkey PRIMARY KEY (id);


--
-- Name: review_sample_items review_sample_items_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.review_sample_items
    ADD CONSTRAINT review_sample_items_pkey PRIMARY KEY (id);


--
-- Name: review_sample_strata review_sample_strata_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.review_sample_strata
    ADD CONSTRAINT review_sample_strata_pkey PRIMARY KEY (id);


--
-- Name: audit_crowd_labels uq_audit_crowd_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_crowd_labels
    ADD CONSTRAINT uq_audit_crowd_key UNIQUE (project, task_id, annotation_id);


--
-- Name: audit_members uq_audit_members_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_members
    ADD CONSTRAINT uq_audit_members_key UNIQUE (project, task_id, model_version, member_id);


--
-- Name: audit_results uq_audit_results_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_results
    ADD CONSTRAINT uq_audit_results_key UNIQUE (project, task_id, model_version);


--
-- Name: review_answers uq_review_answers_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.review_answers
    ADD CONSTRAINT uq_review_answers_key UNIQUE (ref, annotation_id);


--
-- Name: review_assignments uq_review_assignments_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.review_assignments
    ADD CONSTRAINT uq_review_assignments_key UNIQUE (source_project, task_id, round, expert);


--
-- Name: review_gold_labels uq_review_gold_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.review_gold_labels
    ADD CONSTRAINT uq_review_gold_key UNIQUE (source_project, task_id);


--
-- Name: review_items uq_review_items_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.review_items
    ADD CONSTRAINT uq_review_items_key UNIQUE (source_project, task_id);


--
-- Name: review_projects uq_review_projects_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.review_projects
    ADD CONSTRAINT uq_review_projects_key UNIQUE (source_project, round, expert);


--
-- Name: review_sample_items uq_review_sample_items; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.review_sample_items
    ADD CONSTRAINT uq_review_sample_items UNIQUE (source_project, task_id);


--
-- Name: review_sample_strata uq_review_sample_strata; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.review_sample_strata
    ADD CONSTRAINT uq_review_sample_strata UNIQUE (source_project, stratum);


--
-- Name: ix_audit_crowd_labels_project; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_audit_crowd_labels_project ON public.audit_crowd_labels USING btree (project);


--
-- Name: ix_audit_jobs_project; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_audit_jobs_project ON public.audit_jobs USING btree (project);


--
-- Name: ix_audit_members_project; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_audit_members_project ON public.audit_members USING btree (project);


--
-- Name: ix_audit_results_project; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_audit_results_project ON public.audit_results USING btree (project);


--
-- Name: ix_probe_results_member_condition_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_probe_results_member_condition_time ON public.probe_results USING btree (member_id, condition, created_at);


--
-- Name: ix_review_answers_ref; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_review_answers_ref ON public.review_answers USING btree (ref);


--
-- Name: ix_review_answers_source_project; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_review_answers_source_project ON public.review_answers USING btree (source_project);


--
-- Name: ix_review_assignments_ls_project_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_review_assignments_ls_project_id ON public.review_assignments USING btree (ls_project_id);


--
-- Name: ix_review_assignments_source_project; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_review_assignments_source_project ON public.review_assignments USING btree (source_project);


--
-- Name: ix_review_gold_labels_source_project; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_review_gold_labels_source_project ON public.review_gold_labels USING btree (source_project);


--
-- Name: ix_review_items_source_project; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_review_items_source_project ON public.review_items USING btree (source_project);


--
-- Name: ix_review_projects_source_project; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_review_projects_source_project ON public.review_projects USING btree (source_project);


--
-- Name: ix_review_sample_items_source_project; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_review_sample_items_source_project ON public.review_sample_items USING btree (source_project);


--
-- Name: ix_review_sample_strata_source_project; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_review_sample_strata_source_project ON public.review_sample_strata USING btree (source_project);


--
-- PostgreSQL database dump complete
--

\unrestrict 5BC3Xd4tgLfhhJEstaRXwKygf3bnAM3LqYjCgDGaIBtdX29XMbX5Zwjo0iODSJf

