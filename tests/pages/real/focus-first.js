document.querySelector("form input").focus();
